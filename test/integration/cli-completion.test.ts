// `admission-chain completion`: the scripts follow the command tree. The bash script is loaded by
// a real bash and asked to complete, once through the real command line; every command and flag
// that `--help` lists must be offered. zsh and fish are not on the test machines, so their scripts
// are checked for the same commands and flags as text.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliPath, nodeBinary, runMain } from '../support/cli.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const { write } = scratchFiles('completion');

function bash(script: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What the loaded bash completion offers for the words typed so far (the last one being completed). */
function complete(scriptFile: string, words: string[]): string[] {
  const array = words.map((w) => `'${w}'`).join(' ');
  const out = bash(
    `source '${scriptFile}'; COMP_WORDS=(admission-chain ${array}); COMP_CWORD=${words.length}; _admission_chain; printf '%s\\n' "\${COMPREPLY[@]}"`,
  );
  expect(out.stderr).toBe('');
  return out.stdout.split('\n').filter(Boolean);
}

/** The commands `admission-chain --help` lists, and the long flags each command's --help lists. */
async function helpTree(): Promise<Map<string, string[]>> {
  const top = (await runMain(['--help'])).stdout;
  const commands = [...top.split('Commands:')[1]!.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!);
  const tree = new Map<string, string[]>();
  for (const command of commands) {
    const help = command === 'help' ? '' : (await runMain([command, '--help'])).stdout;
    tree.set(
      command,
      [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!),
    );
  }
  return tree;
}

describe('completion bash', () => {
  it('loads in bash and registers the completion (the real command line)', () => {
    const out = bash(`source <('${nodeBinary}' '${cliPath}' completion bash); complete -p admission-chain`);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toMatch(/^complete .*-F _admission_chain admission-chain$/);
  });

  it('offers every command and every flag that --help lists, and the choices of a flag', async () => {
    const file = write('completion.bash', (await runMain(['completion', 'bash'])).stdout);
    const tree = await helpTree();
    expect([...tree.keys()]).toEqual(expect.arrayContaining(['serve', 'review', 'explain', 'authorize', 'completion', 'help']));
    expect(tree.get('review')).toEqual(expect.arrayContaining(['--cluster-state', '--output', '--fail-on', '--help']));
    expect(complete(file, [''])).toEqual(expect.arrayContaining([...tree.keys()]));
    for (const [command, flags] of tree) {
      if (command === 'help') continue;
      expect(complete(file, [command, '--']), command).toEqual(expect.arrayContaining(flags));
    }
    expect(complete(file, ['review', '-o', ''])).toEqual(['review', 'json', 'yaml', 'table']);
    expect(complete(file, ['review', '--fail-on', 'w'])).toEqual(['warn']);
    expect(complete(file, ['completion', '--'])).toContain('--help');
    expect(complete(file, ['help', 're'])).toEqual(['review']);
  });
});

describe.each(['zsh', 'fish'])('completion %s', (shell) => {
  it('names every command and every flag that --help lists', async () => {
    const result = await runMain(['completion', shell]);
    expect(result.code).toBe(0);
    for (const [command, flags] of await helpTree()) {
      expect(result.stdout).toContain(command);
      for (const flag of flags) expect(result.stdout, `${command} ${flag}`).toContain(shell === 'fish' ? `-l ${flag.slice(2)}` : flag);
    }
  });
});

it('refuses a shell it does not know as a usage error', async () => {
  const result = await runMain(['completion', 'tcsh']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.");
});
