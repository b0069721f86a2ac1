import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellOption, shellWord } from './shell-words.js';

/** What a real shell makes of the words: one argument per line. */
const argv = (words: string) => execFileSync('sh', ['-c', `printf '%s\\n' ${words}`], { encoding: 'utf8' }).split('\n').slice(0, -1);

describe('shell words', () => {
  it('leaves plain words alone and quotes the rest so the shell gives back exactly the text', () => {
    expect(shellWord('scenarios/quickstart.yaml')).toBe('scenarios/quickstart.yaml');
    expect(shellOption('seed', '7')).toBe('--seed 7');
    for (const text of ['sp ace/fail 5.yaml', 'a$HOME`x`', "it's", 'tab\there', '*.yaml', '']) expect(argv(shellWord(text))).toEqual([text]);
    expect(argv(shellOption('seed', '-3'))).toEqual(['--seed=-3']);
    expect(argv(shellOption('seed', 'two words'))).toEqual(['--seed', 'two words']);
  });
});
