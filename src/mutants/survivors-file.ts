/**
 * docs/mutation-survivors.md: every generated mutant that neither the tests nor swarm killed,
 * with a verdict a person wrote: `equivalent: <why no behaviour changes>`, `gap closed: <by which
 * new test, invariant or adversary>`, or `open`. `npm run mutation -- --survivors` rewrites the
 * list from the last report and keeps every verdict already written (by the mutant's stable id);
 * the report reads the equivalent ones to compute the score over non-equivalent mutants.
 *
 * An entry:
 *
 *     ### tx-pool@1a2b3c4d
 *     - at: line 123:5-123:40, ConditionalExpression
 *     - mutant: `a > b` → `false`
 *     - result: survived the tests (…) and 20 swarm seeds
 *     - verdict: equivalent: the branch only shortens a search whose outcome is the same
 *
 * A verdict may continue on indented lines below it.
 */

export type VerdictKind = 'equivalent' | 'gap closed' | 'open';

export interface Verdict {
  readonly kind: VerdictKind;
  /** The reason (equivalent), the test/invariant/adversary that closed it (gap closed), or a note (open). */
  readonly text: string;
}

/** A malformed triage file: says where and what. */
export class TriageFileError extends Error {
  override readonly name = 'TriageFileError';
}

const VERDICT = /^- verdict:\s*(.*)$/;
const NOW_KILLED = '## Now killed';
const AT = /^- at: (\S+) (\d+):/;
const ENTRY = /^### (\S+)\s*$/;

export function parseVerdict(text: string, where: string): Verdict {
  const t = text.trim();
  const m = /^(equivalent|gap closed|open)\b\s*(?:[:—–-]\s*)?([\s\S]*)$/i.exec(t);
  if (!m) throw new TriageFileError(`${where}: the verdict must start with "equivalent:", "gap closed:" or "open" (got ${JSON.stringify(t.slice(0, 60))})`);
  const kind = m[1]!.toLowerCase() as VerdictKind;
  const rest = m[2]!.trim();
  if (kind === 'equivalent' && rest === '') throw new TriageFileError(`${where}: an equivalent verdict needs its reason ("equivalent: <why no behaviour changes>")`);
  if (kind === 'gap closed' && rest === '') throw new TriageFileError(`${where}: a "gap closed" verdict names the test, invariant or adversary that closed it`);
  return { kind, text: rest };
}

/**
 * The entries of a triage file, by mutant id, with their lines as written (so entries the tool
 * does not regenerate are kept as they are); TriageFileError on a malformed or duplicate entry.
 */
export function parseTriageEntries(text: string, file = 'docs/mutation-survivors.md'): Map<string, TriageEntry> {
  const entries = new Map<string, TriageEntry>();
  const lines = text.split('\n');
  let current: { id: string; at: number; lines: string[]; file?: string; line: number; verdict?: Verdict } | undefined;
  let inKilled = false;
  const close = () => {
    if (current === undefined) return;
    const c = current;
    current = undefined;
    if (c.verdict === undefined) throw new TriageFileError(`${file}:${c.at}: entry ${c.id} has no "- verdict:" line`);
    if (c.file === undefined) throw new TriageFileError(`${file}:${c.at}: entry ${c.id} has no "- at: <file> …" line`);
    while (c.lines.length > 0 && c.lines.at(-1)!.trim() === '') c.lines.pop();
    entries.set(c.id, { id: c.id, file: c.file, line: c.line, lines: c.lines, verdict: c.verdict, ...(inKilled ? { nowKilled: true } : {}) });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const entry = ENTRY.exec(line);
    if (entry) {
      close();
      const id = entry[1]!;
      if (entries.has(id)) throw new TriageFileError(`${file}:${i + 1}: entry ${id} appears twice`);
      current = { id, at: i + 1, lines: [line], line: 0 };
      continue;
    }
    if (/^#{1,2} /.test(line)) {
      close();
      inKilled = line === NOW_KILLED;
      continue;
    }
    if (current === undefined) continue;
    const at = AT.exec(line);
    if (at) {
      current.file = at[1]!;
      current.line = Number(at[2]);
    }
    const v = VERDICT.exec(line);
    if (v) {
      if (current.verdict) throw new TriageFileError(`${file}:${i + 1}: entry ${current.id} has a second verdict`);
      let body = v[1]!;
      current.lines.push(line);
      while (i + 1 < lines.length && /^ {2,}\S/.test(lines[i + 1]!)) {
        body += ` ${lines[++i]!.trim()}`;
        current.lines.push(lines[i]!);
      }
      current.verdict = parseVerdict(body, `${file}:${i + 1} (${current.id})`);
      continue;
    }
    current.lines.push(line);
  }
  close();
  return entries;
}

/** The verdicts of a triage file, by mutant id. */
export function parseTriageFile(text: string, file = 'docs/mutation-survivors.md'): Map<string, Verdict> {
  return new Map([...parseTriageEntries(text, file)].map(([id, e]) => [id, e.verdict]));
}

/** One entry of the file: as parsed (`lines` as written) or as the tool writes it (the mutant's details). */
export interface TriageEntry {
  readonly id: string;
  readonly file: string;
  readonly line: number;
  /** The entry's lines as written (parsed entries). */
  readonly lines: readonly string[];
  readonly verdict: Verdict;
  readonly where?: string;
  readonly mutatorName?: string;
  readonly original?: string;
  readonly replacement?: string;
  /** What happened to it (tests, swarm), in words. */
  readonly result?: string;
  /** Listed under "Now killed". */
  readonly nowKilled?: boolean;
}

function code(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const clipped = t.length > 120 ? `${t.slice(0, 120)}…` : t;
  const ticks = clipped.includes('`') ? '``' : '`';
  return `${ticks}${ticks.length > 1 ? ' ' : ''}${clipped === '' ? ' ' : clipped}${ticks.length > 1 ? ' ' : ''}${ticks}`;
}

export function verdictText(v: Verdict): string {
  return v.kind === 'open' ? (v.text === '' ? 'open' : `open: ${v.text}`) : `${v.kind}: ${v.text}`;
}

export interface TriageFileHeader {
  readonly date: string;
  readonly commit: string;
  readonly reportPath: string;
  /** The report was partial (a run's state as it stood): entries it does not hold were kept. */
  readonly partial?: true;
}

/**
 * The triage file: the current survivors by file (with `kept`: entries of files the report did
 * not cover, as they were written), then (so no verdict is lost) mutants that carry a verdict but
 * are now killed.
 */
export function renderTriageFile(header: TriageFileHeader, survivors: readonly TriageEntry[], nowKilled: readonly TriageEntry[], kept: readonly TriageEntry[] = []): string {
  const out: string[] = [
    '# Mutation survivors',
    '',
    'Every generated mutant of the consensus-critical code that neither the tests nor swarm killed',
    '([docs/mutation.md](mutation.md)), with its verdict: `equivalent: <why no behaviour changes>`,',
    '`gap closed: <the test, invariant or adversary that now kills it>`, or `open`. Regenerate the',
    'list with `npm run mutation -- --survivors` (verdicts are kept by id); the report counts the',
    'equivalent ones out of the score.',
    '',
    `Generated from ${header.reportPath} of ${header.date} (commit ${header.commit})${header.partial ? ', a partial report (a run\'s state as it stood): entries of mutants it had not tested yet are kept as they were' : ''}.`,
    '',
  ];
  const all = [...survivors, ...kept.filter((e) => !e.nowKilled)];
  const killed = [...nowKilled, ...kept.filter((e) => e.nowKilled)];
  const count = (k: VerdictKind) => all.filter((s) => s.verdict.kind === k).length;
  out.push(`${all.length} survivor${all.length === 1 ? '' : 's'}: ${count('equivalent')} equivalent, ${count('open')} open${count('gap closed') > 0 ? `, ${count('gap closed')} marked gap closed but still surviving` : ''}.`, '');
  const entry = (e: TriageEntry) =>
    e.where === undefined ? [...e.lines, ''] : [`### ${e.id}`, `- at: ${e.file} ${e.where}, ${e.mutatorName}`, `- mutant: ${code(e.original ?? '')} → ${code(e.replacement ?? '')}`, `- result: ${e.result}`, `- verdict: ${verdictText(e.verdict)}`, ''];
  const byFile = new Map<string, TriageEntry[]>();
  for (const s of all) byFile.set(s.file, [...(byFile.get(s.file) ?? []), s]);
  for (const [file, entries] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`## ${file}`, '');
    for (const e of [...entries].sort((a, b) => a.line - b.line || a.id.localeCompare(b.id))) out.push(...entry(e));
  }
  if (killed.length > 0) {
    out.push(NOW_KILLED, '', 'Mutants with a verdict that the tests or swarm kill today (a gap closed since).', '');
    for (const e of [...killed].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)) out.push(...entry(e));
  }
  return `${out.join('\n').trimEnd()}\n`;
}
