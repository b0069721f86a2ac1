// The fenced blocks of a Markdown page with the readme-test directives right before each (see
// test/readme.test.ts for what each directive means) and the `$ ` command lines in it.

export interface Command {
  readonly line: number;
  readonly text: string;
  readonly expected: string[];
}

export interface Block {
  /** The page it is in, relative to the repository: README.md or docs/x.md. */
  readonly page: string;
  readonly line: number;
  readonly lang: string;
  readonly directives: Map<string, string>;
  readonly body: string[];
  readonly commands: Command[];
}

const DIRECTIVES = new Set(['skip', 'ports', 'tmp', 'cwd', 'before', 'after', 'serve', 'http', 'mask', 'file', 'excerpt', 'example']);

/** Every fenced block of a page (README.md or docs/x.md) with the readme-test markers right above it. */
export function parseReadme(text: string, page = 'README.md'): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent));
    const directives = new Map<string, string>();
    for (let j = start - 1; j >= 0; j--) {
      const marker = /^\s*<!--\s*readme-test:\s*([a-z]+)\s*:?\s*(.*?)\s*-->\s*$/.exec(lines[j]!);
      if (!marker) break;
      if (!DIRECTIVES.has(marker[1]!)) throw new Error(`${page}:${j + 1}: unknown readme-test directive "${marker[1]}" (known: ${[...DIRECTIVES].join(', ')})`);
      directives.set(marker[1]!, marker[2]!);
    }
    blocks.push({ page, line: start + 1, lang: open[2]!, directives, body, commands: commandsOf(body, start + 2) });
  }
  return blocks;
}

function commandsOf(body: string[], firstLine: number): Command[] {
  const commands: Command[] = [];
  for (let k = 0; k < body.length; k++) {
    if (!body[k]!.startsWith('$ ')) {
      commands.at(-1)?.expected.push(body[k]!);
      continue;
    }
    let text = body[k]!.slice(2);
    const line = firstLine + k;
    while (text.endsWith('\\') && k + 1 < body.length) text += `\n${body[++k]}`;
    commands.push({ line, text, expected: [] });
  }
  return commands;
}
