// The stand-in's warning recorder against upstream's own table (k8s.io/apiserver
// pkg/endpoints/filters/warning_test.go: Test_recorder_AddWarning and TestTruncation, every row),
// and the explanation warnings against kube-apiserver's real limits.
import { describe, expect, it } from 'vitest';
import { FactType } from '../../src/admission/explanation.ts';
import { createExplainer } from '../../src/explain/index.ts';
import { admissionWarningHeader, WarningRecorder } from './warning-header.ts';

describe('Test_recorder_AddWarning', () => {
  it.each<[string, Array<[string, string]>, string[]]>([
    ['empty', [], []],
    ['empty values', [['', '']], []],
    ['empty agent', [['', 'mytext']], ['299 - "mytext"']],
    ['simple', [['myagent', 'mytext']], ['299 myagent "mytext"']],
    ['duplicate text', [['myagent', 'mytext'], ['myagent2', 'mytext']], ['299 myagent "mytext"']],
    ['multiple', [['', 'mytext1'], ['', 'mytext2'], ['', 'mytext3']], ['299 - "mytext1"', '299 - "mytext2"', '299 - "mytext3"']],
    ['invalid agent', [['my agent', 'mytext']], []],
    ['invalid text', [['myagent', 'my\ntext']], []],
  ])('%s', (_name, added, expected) => {
    const recorder = new WarningRecorder();
    for (const [agent, text] of added) recorder.add(agent, text);
    expect(recorder.headers()).toEqual(expected);
  });
});

describe('TestTruncation', () => {
  it('keeps items whole up to the total, then cuts every item and drops what comes past the total again', () => {
    const recorder = new WarningRecorder({ totalRunes: 25, itemRunes: 5 });
    for (const [agent, text] of [['', 'aaaaaaaaaa'], ['-', 'aaaaaaaaaa'], ['', 'bb'], ['', 'ccc'], ['', 'Iñtërnâtiô']]) recorder.add(agent!, text!);
    expect(recorder.headers()).toEqual(['299 - "aaaaaaaaaa"', '299 - "bb"', '299 - "ccc"', '299 - "Iñtërnâtiô"']);
    for (const text of ['e', 'ffffffffff', 'ffffffffff', 'gggggggggg', 'h']) recorder.add('', text);
    expect(recorder.headers()).toEqual(['299 - "aaaaa"', '299 - "bb"', '299 - "ccc"', '299 - "Iñtër"', '299 - "e"', '299 - "fffff"', '299 - "ggggg"']);
  });
});

describe('explanation warnings pass kube-apiserver whole', () => {
  it('even when the request\'s other warnings push the total past 4096 runes', () => {
    const explained = createExplainer().explain(
      {
        facts: [
          {
            type: FactType.Authorization,
            attributes: { user: { username: 'demo-user' }, resourceAttributes: { verb: 'update', namespace: 'admission-chain-demo', group: 'apps', resource: 'deployments', subresource: 'finalizers', name: 'web' } },
            answer: { decision: 'no-opinion', reason: '' },
          },
        ],
      },
      { mutatingPlugins: [] },
    );
    // Quoted names: the header must escape them.
    expect(explained.warnings[0]).toBe('user "demo-user" may not update deployments/finalizers (apps) "web" in namespace "admission-chain-demo"');
    const noise = Array.from({ length: 10 }, (_, i) => `${i}${'x'.repeat(1000)}`);
    const header = admissionWarningHeader([...noise.slice(0, 5), ...explained.warnings, ...noise.slice(5)])!;
    // The others were cut to 256 runes; ours, each within 256, arrive whole.
    expect(header).toContain(`299 - "0${'x'.repeat(255)}", `);
    for (const warning of explained.warnings) expect(header).toContain(`299 - "${warning.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  });
});
