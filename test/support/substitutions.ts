/**
 * Literal substitutions from a page's text to a run's (ports, paths) and back, as the README test
 * makes them. All pairs apply in one pass: applied one after another, a port drawn for one name
 * that equals another name (a free port 20202 drawn for the page's 8545, beside the page's 20202)
 * was rewritten again by the later pair, and a chain got two nodes on one port.
 * A number is replaced only where it stands alone (not inside a word or after a dot); any other
 * text wherever it occurs. Where two pairs give the same text, the first one counts.
 */
export class Substitutions {
  private readonly pairs: [string, string][] = [];

  add(page: string, actual: string): void {
    this.pairs.push([page, actual]);
  }

  forward(text: string): string {
    return this.apply(text, 0);
  }

  back(text: string): string {
    return this.apply(text, 1);
  }

  private apply(text: string, from: 0 | 1): string {
    const to = new Map<string, string>();
    for (const pair of this.pairs) if (!to.has(pair[from])) to.set(pair[from], pair[1 - from]!);
    if (to.size === 0) return text;
    const longestFirst = (a: string, b: string) => b.length - a.length;
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const keys = [...to.keys()];
    const literals = keys.filter((k) => !/^\d+$/.test(k)).sort(longestFirst).map(escape);
    const numbers = keys.filter((k) => /^\d+$/.test(k)).sort(longestFirst);
    const alternatives = [...literals, ...(numbers.length > 0 ? [`(?<![\\w.])(?:${numbers.join('|')})(?!\\w)`] : [])];
    return text.replace(new RegExp(alternatives.join('|'), 'g'), (match) => to.get(match)!);
  }
}
