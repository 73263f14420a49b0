// Command lines users can paste: words with nothing the shell would expand are left bare, anything
// else is single-quoted (a quote inside becomes '\'').
const bare = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellWord(word: string): string {
  return bare.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
