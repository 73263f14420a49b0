import fastJsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { cloneJson } from '../util/clone-json.ts';
import { eachItem, type MutationPath, MutationScope } from './mutation-scope.ts';

const pod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web' }, annotations: { big: 'x'.repeat(100) } },
  spec: {
    containers: [{ name: 'a', image: 'a:1', env: [{ name: 'A', value: '1' }] }],
    volumes: [{ name: 'v', emptyDir: {} }],
    nodeSelector: { zone: 'a' },
  },
});

const containersAndVolumes: MutationPath[] = [
  ['spec', 'containers'],
  ['spec', 'volumes'],
];

describe('MutationScope', () => {
  it('copies the paths deeply and shares everything else with the original', () => {
    const original = pod();
    const working = MutationScope.of([containersAndVolumes]).copy(original);
    expect(working).toEqual(original);
    expect(working).not.toBe(original);
    expect(working.spec).not.toBe(original.spec);
    expect(working.spec.containers).not.toBe(original.spec.containers);
    expect(working.spec.containers[0]).not.toBe(original.spec.containers[0]);
    expect(working.spec.containers[0]!.env).not.toBe(original.spec.containers[0]!.env);
    expect(working.metadata).toBe(original.metadata);
    expect(working.spec.nodeSelector).toBe(original.spec.nodeSelector);
  });

  it('gives the same patch as comparing whole objects, and leaves the original untouched', () => {
    const original = pod();
    const before = cloneJson(original);
    const scope = MutationScope.of([containersAndVolumes, [['metadata', 'finalizers']]]);
    const working = scope.copy(original) as ReturnType<typeof pod> & { metadata: { finalizers?: string[] } };
    working.spec.containers[0]!.env[0]!.value = '2';
    (working.spec.containers[0] as Record<string, unknown>).imagePullPolicy = 'Always';
    working.spec.volumes.push({ name: 'w', emptyDir: {} });
    working.metadata = { ...working.metadata, finalizers: ['f'] };
    expect(original).toEqual(before);
    const patch = scope.patch(original, working);
    expect(patch).toEqual(fastJsonPatch.compare(original, working));
    expect(patch.length).toBeGreaterThan(0);
  });

  it('sees a value assigned off the paths on an object it copied (a replaced spec field, a new top-level field)', () => {
    const original = pod();
    const scope = MutationScope.of([containersAndVolumes]);
    // biome-ignore lint/suspicious/noExplicitAny: the test reaches into JSON it built
    const working = scope.copy(original) as Record<string, any>;
    working.spec.nodeSelector = { zone: 'b' };
    working.spec.serviceAccountName = 'default';
    working.status = { phase: 'Pending' };
    delete working.apiVersion;
    expect(scope.patch(original, working)).toEqual(fastJsonPatch.compare(original, working));
  });

  it('copies each item of a list shallowly along the rest of its path, sharing what the items hold', () => {
    const original = pod();
    const before = cloneJson(original);
    const scope = MutationScope.of([[['spec', 'containers', eachItem, 'imagePullPolicy']]]);
    const working = scope.copy(original);
    expect(working.spec.containers).not.toBe(original.spec.containers);
    expect(working.spec.containers[0]).not.toBe(original.spec.containers[0]);
    expect(working.spec.containers[0]!.env).toBe(original.spec.containers[0]!.env);
    expect(working.spec.volumes).toBe(original.spec.volumes);
    (working.spec.containers[0] as Record<string, unknown>).imagePullPolicy = 'Always';
    working.spec.containers.push({ name: 'b', image: 'b:1', env: [] });
    expect(original).toEqual(before);
    const patch = scope.patch(original, working);
    expect(patch).toEqual(fastJsonPatch.compare(original, working));
    expect(patch).toEqual([
      { op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' },
      { op: 'add', path: '/spec/containers/1', value: { name: 'b', image: 'b:1', env: [] } },
    ]);
  });

  it('copies whole what stands where a list of items belongs (a malformed body)', () => {
    const original = { spec: { containers: { a: { env: [{ name: 'A' }] } } } };
    const scope = MutationScope.of([[['spec', 'containers', eachItem, 'imagePullPolicy']]]);
    const working = scope.copy(original);
    expect(working).toEqual(original);
    expect(working.spec.containers.a.env).not.toBe(original.spec.containers.a.env);
    working.spec.containers.a.env[0]!.name = 'B';
    expect(original.spec.containers.a.env[0]!.name).toBe('A');
    expect(scope.patch(original, working)).toEqual(fastJsonPatch.compare(original, working));
  });

  it('sends no patch when nothing changed', () => {
    const original = pod();
    const scope = MutationScope.of([containersAndVolumes]);
    expect(scope.patch(original, scope.copy(original))).toEqual([]);
  });

  it('copies and compares everything when a plugin did not say where it writes', () => {
    const original = pod();
    const scope = MutationScope.of([containersAndVolumes, undefined]);
    const working = scope.copy(original);
    expect(working.metadata).not.toBe(original.metadata);
    working.metadata.labels.app = 'db';
    expect(scope.patch(original, working)).toEqual([{ op: 'replace', path: '/metadata/labels/app', value: 'db' }]);
  });

  it('keeps "__proto__" an own key, as JSON.parse makes it', () => {
    // biome-ignore lint/suspicious/noExplicitAny: the test reaches into JSON it built
    const original = JSON.parse('{"__proto__":{"x":1},"spec":{"containers":[]}}') as Record<string, any>;
    const scope = MutationScope.of([containersAndVolumes]);
    const working = scope.copy(original);
    expect(Object.keys(working)).toEqual(['__proto__', 'spec']);
    expect(Object.getPrototypeOf(working)).toBe(Object.prototype);
    working.spec.containers.push({ name: 'a' });
    expect(scope.patch(original, working)).toEqual([{ op: 'add', path: '/spec/containers/0', value: { name: 'a' } }]);
  });

  it('copies a malformed value on a path whole (an array where an object belongs)', () => {
    const original = { spec: [{ containers: [] }] };
    const working = MutationScope.of([containersAndVolumes]).copy(original);
    expect(working.spec).not.toBe(original.spec);
    expect(working.spec[0]).not.toBe(original.spec[0]);
  });

  it('inside a path, gives the same patch as compare for the changes compare treats apart', () => {
    const base = () => ({
      spec: {
        containers: [
          { name: 'a', env: [{}, {}, { name: 'X', value: null }], ports: [1, 2, 3], args: ['x'] },
          { name: 'b', env: Array.from({ length: 1000 }, () => ({})), list: [{ k: 1 }], map: { k: [1] } },
        ],
      },
    });
    /** A container of the copy, to change as a plugin would. */
    // biome-ignore lint/suspicious/noExplicitAny: the test reaches into JSON it built
    const at = (pod: ReturnType<typeof base>, index: number) => pod.spec.containers[index] as Record<string, any>;
    const changes: Array<[string, (pod: ReturnType<typeof base>) => void]> = [
      ['nothing', () => {}],
      ['an equal value assigned over the copy', (pod) => (at(pod, 1).env = Array.from({ length: 1000 }, () => ({})))],
      ['an item deep in a long list', (pod) => (at(pod, 1).env[999].name = 'Y')],
      ['a list shortened', (pod) => at(pod, 0).ports.pop()],
      ['a list lengthened', (pod) => at(pod, 1).env.push({})],
      ['a list replaced by an object', (pod) => (at(pod, 0).args = { 0: 'x' })],
      ['an object replaced by a list', (pod) => (at(pod, 1).map = [[1]])],
      [
        'a key removed and another added',
        (pod) => {
          delete at(pod, 1).list;
          at(pod, 1).other = [{ k: 1 }];
        },
      ],
      [
        'a null replaced and a value set to undefined',
        (pod) => {
          at(pod, 0).env[2].value = 'v';
          at(pod, 0).name = undefined;
        },
      ],
      ['a container removed from the front', (pod) => pod.spec.containers.shift()],
      ['a hole in a list', (pod) => delete at(pod, 0).ports[1]],
    ];
    for (const [what, change] of changes) {
      const original = base();
      const scope = MutationScope.of([[['spec', 'containers']]]);
      const working = scope.copy(original);
      change(working);
      expect(scope.patch(original, working), what).toEqual(fastJsonPatch.compare(original, working));
    }
  });

  it('passes over an unchanged value inside a path however deep it is nested, without recursing into it', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const original = { spec: { containers: [{ name: 'a', deep }] } };
    const scope = MutationScope.of([[['spec', 'containers']]]);
    const working = scope.copy(original);
    (working.spec.containers[0] as Record<string, unknown>).imagePullPolicy = 'Always';
    expect(scope.patch(original, working)).toEqual([{ op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' }]);
  });

  // Random objects, random paths, random changes made only where the paths allow: the scoped
  // patch must equal fast-json-patch's compare of the whole objects, operation for operation.
  it('equals the whole-object compare on random objects and changes (fixed seed)', () => {
    let state = 7;
    const intBelow = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((state / 2 ** 31) * n);
    };
    const keys = ['a', 'b', 'c', 'd'];
    const value = (depth: number): unknown => {
      const kind = intBelow(depth > 2 ? 3 : 6);
      if (kind === 0) return intBelow(3);
      if (kind === 1) return keys[intBelow(keys.length)];
      if (kind === 2) return null;
      if (kind === 3) return Array.from({ length: intBelow(3) }, () => value(depth + 1));
      const object: Record<string, unknown> = {};
      for (const key of keys) if (intBelow(2) === 0) object[key] = value(depth + 1);
      return object;
    };
    // A step of a path is a key or, one time in five, every item of an array.
    const randomPath = (): MutationPath =>
      Array.from({ length: 1 + intBelow(3) }, () => (intBelow(5) === 4 ? eachItem : keys[intBelow(keys.length)]!));
    /** Changes something in `at`: anywhere inside when deep, else only `at`'s own entries. */
    const mutate = (at: unknown, deep: boolean) => {
      if (typeof at !== 'object' || at === null) return;
      if (Array.isArray(at)) {
        const op = intBelow(3);
        if (op === 0) at.push(value(2));
        else if (op === 1 && at.length > 0) at.splice(intBelow(at.length), 1);
        else if (at.length > 0) at[intBelow(at.length)] = value(2);
        return;
      }
      const record = at as Record<string, unknown>;
      const key = keys[intBelow(keys.length)]!;
      const op = intBelow(4);
      if (op === 0) delete record[key];
      else if (op === 1 && deep && typeof record[key] === 'object') mutate(record[key], deep);
      else record[key] = value(2);
    };
    for (let i = 0; i < 2000; i++) {
      const original = value(0);
      if (typeof original !== 'object' || original === null || Array.isArray(original)) continue;
      const before = cloneJson(original);
      const paths = Array.from({ length: 1 + intBelow(3) }, randomPath);
      const scope = MutationScope.of([paths]);
      const working = scope.copy(original) as Record<string, unknown>;
      for (let n = intBelow(4); n > 0; n--) {
        // Walk down one of the paths as far as objects go, then change something there: a path's
        // own value anywhere inside, an object on the way only by assigning or deleting its entries.
        const path = paths[intBelow(paths.length)]!;
        let at: unknown = working;
        let depth = 0;
        // Where an array belongs and something else is, that something was copied whole.
        let copiedWhole = false;
        for (const key of path) {
          if (key === eachItem && !Array.isArray(at)) {
            copiedWhole = true;
            break;
          }
          const items = at as unknown[];
          if (key === eachItem && items.length === 0) break;
          const next = key === eachItem ? items[intBelow(items.length)] : (at as Record<string, unknown>)[key];
          if (typeof next !== 'object' || next === null) break;
          at = next;
          depth++;
        }
        mutate(at, copiedWhole || depth === path.length);
      }
      expect(original, 'the original never changes').toEqual(before);
      expect(scope.patch(original, working)).toEqual(fastJsonPatch.compare(original, working));
    }
  });
});
