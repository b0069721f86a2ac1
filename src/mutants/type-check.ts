/**
 * Does a mutated source still build? `npm test` type-checks the sources (tsc --noEmit), so a
 * mutant that does not type-check cannot ship: the mutation run counts it as killed by a compile
 * error, as StrykerJS's TypeScript checker would, instead of sending it to swarm.
 *
 * Unused locals and parameters do not count (a mutant that empties a body leaves its parameters
 * unread, which is not a reason it could not be built).
 *
 * One TypeScript language service over the project's tsconfig.json, kept warm between mutants:
 * a mutant is checked in its own file, and when it changes what the file declares to others
 * (its declaration output differs) in every file of the program.
 */
import path from 'node:path';
import ts from 'typescript';

export class MutantTypeChecker {
  private readonly service: ts.LanguageService;
  private readonly fileNames: string[];
  private readonly overrides = new Map<string, { text: string; version: number }>();
  private readonly declarations = new Map<string, string>();
  private version = 0;

  constructor(private readonly root: string, tsconfig = 'tsconfig.json') {
    const configPath = path.join(root, tsconfig);
    const read = ts.readConfigFile(configPath, (f) => ts.sys.readFile(f));
    if (read.error) throw new Error(`cannot read ${configPath}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath);
    this.fileNames = parsed.fileNames;
    // unused locals and parameters are style checks: a mutant that empties a function body leaves
    // its parameters unread, which says nothing about whether the mutated code can be built
    const options: ts.CompilerOptions = { ...parsed.options, noUnusedLocals: false, noUnusedParameters: false, noEmit: false, declaration: true, emitDeclarationOnly: true, incremental: false };
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => this.fileNames,
      getScriptVersion: (f) => String(this.overrides.get(path.resolve(f))?.version ?? 0),
      getScriptSnapshot: (f) => {
        const o = this.overrides.get(path.resolve(f));
        if (o) return ts.ScriptSnapshot.fromString(o.text);
        const text = ts.sys.readFile(f);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => root,
      getCompilationSettings: () => options,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: (f) => this.overrides.has(path.resolve(f)) || ts.sys.fileExists(f),
      readFile: (f) => this.overrides.get(path.resolve(f))?.text ?? ts.sys.readFile(f),
      readDirectory: (...a) => ts.sys.readDirectory(...a),
      directoryExists: (d) => ts.sys.directoryExists(d),
      getDirectories: (d) => ts.sys.getDirectories(d),
    };
    this.service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  private format(d: ts.Diagnostic): string {
    const where = d.file && d.start !== undefined ? (() => {
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${path.relative(this.root, d.file.fileName)}:${line + 1}:${character + 1}: `;
    })() : '';
    return `${where}${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  }

  private diagnostics(file: string): string[] {
    return [...this.service.getSyntacticDiagnostics(file), ...this.service.getSemanticDiagnostics(file)].map((d) => this.format(d));
  }

  private declarationOf(file: string): string {
    return this.service.getEmitOutput(file, true).outputFiles.map((o) => o.text).join('\n');
  }

  /** The type errors the mutated text of `file` (relative to the root) brings; empty when it builds. */
  check(file: string, mutatedText: string): string[] {
    const abs = path.resolve(this.root, file);
    if (!this.fileNames.includes(abs)) throw new Error(`${file} is not part of the TypeScript project`);
    // the unmutated file's own errors (if any) are not the mutant's
    if (!this.declarations.has(abs)) this.declarations.set(abs, this.declarationOf(abs));
    const before = new Set(this.diagnostics(abs));
    this.overrides.set(abs, { text: mutatedText, version: ++this.version });
    try {
      const own = this.diagnostics(abs).filter((d) => !before.has(d));
      if (own.length > 0) return own;
      if (this.declarationOf(abs) === this.declarations.get(abs)) return [];
      return this.fileNames.filter((f) => f !== abs).flatMap((f) => this.diagnostics(f));
    } finally {
      this.overrides.delete(abs);
      this.version++;
    }
  }

  dispose(): void {
    this.service.dispose();
  }
}
