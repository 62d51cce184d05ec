// The house plan of src/ (docs/development.md, "Layout"): every import points down the list of folders, never
// up it, and no two files import each other round a circle. Read from the sources as text: the
// rule holds for type-only imports too, since they say what a file is built on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Top to bottom: a folder may import its own and those below it. */
const LAYERS = [
  'main.ts',
  'cli',
  'app',
  'http',
  'sms',
  'callbacks',
  'calls',
  'store',
  'config',
  'speech',
  'pbx',
  'core',
  'lib',
];

const SRC = resolve(import.meta.dirname, '../../src');
const MAX_LINES = 400;
/** About what reads at once: a function past it holds several jobs, each of which can be named. */
const MAX_FUNCTION_LINES = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The src-relative files a source imports (static, re-exports and dynamic `import()`). */
function importsOf(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]/g,
    ),
  ]
    .map((m) => m[1] ?? m[2] ?? m[3])
    .filter((s): s is string => s !== undefined);
  return specifiers.map((s) => relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** The plan's layer of a src-relative path: its first folder, or the file itself at the root. */
function layerOf(path: string): number {
  const first = path.split('/')[0] ?? path;
  return LAYERS.indexOf(first);
}

/** Every "a imports b" that runs up the plan. */
function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) if (layerOf(to) < layerOf(from)) found.push(`${from} -> ${to}`);
  }
  return found;
}

/** The import circles, each as its files (strongly connected components of more than one file). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function srcGraph(): Map<string, string[]> {
  return new Map(sourceFiles(SRC).map((file) => [relative(SRC, file), importsOf(file, readFileSync(file, 'utf8'))]));
}

/** Imports from outside a folder into it that do not go through its entry file (index.ts). */
function pastTheEntry(graph: ReadonlyMap<string, readonly string[]>, folder: string): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    if (from.startsWith(`${folder}/`)) continue;
    for (const to of targets)
      if (to.startsWith(`${folder}/`) && to !== `${folder}/index.ts`) found.push(`${from} -> ${to}`);
  }
  return found;
}

/** The fields of a class declared without `private` or `protected` (its methods and getters aside). */
function publicFields(text: string, className: string): string[] {
  const start = text.indexOf(`class ${className} `);
  if (start < 0) return [`no class ${className}`];
  const body = text.slice(start).split('\n').slice(1);
  const end = body.indexOf('}');
  return body
    .slice(0, end)
    .filter((line) => /^ {2}(?:static )?(?:readonly )?[A-Za-z_$][\w$]*[?!]?\s*(?::|=)/.test(line))
    .map((line) => line.trim());
}

/**
 * The functions of a formatted source longer than `max` lines, as `name:lines`. Measured simply, from the text: a
 * function starts at a line declaring it (`function f(`, `const f = (…) =>`, a method `  f(…) {`) and ends at the
 * first later line that begins with `}` at the same indent (Biome's formatting guarantees that line).
 */
function longFunctions(text: string, max: number): string[] {
  const head =
    /^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*([\w$]+)|(?:const|let)\s+([\w$]+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\([^)]*\)|[\w$]+)\s*(?::[^=]+)?=>|(?:(?:private|protected|public|static|readonly|async|get|set)\s+)*([\w$]+)\s*(?:<[^>]*>)?\()/;
  const notMethods = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'await', 'new', 'function']);
  const lines = text.split('\n');
  const found: string[] = [];
  lines.forEach((line, i) => {
    const m = head.exec(line);
    if (!m) return;
    const indent = m[1] ?? '';
    const method = m[4];
    if (method !== undefined && (indent === '' || notMethods.has(method))) return;
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] ?? '';
      if (next.startsWith(`${indent}}`)) {
        if (j - i + 1 > max) found.push(`${m[2] ?? m[3] ?? method}:${j - i + 1}`);
        return;
      }
      // A line back at the declaration's indent that does not close it: no body of its own (a one-line arrow).
      if (next.trim() !== '' && !next.startsWith(`${indent} `) && !next.startsWith(`${indent})`)) return;
    }
  });
  return found;
}

/** The lines of a source that re-export a whole module (`export * from`, `export * as x from`). */
function starExports(text: string): string[] {
  return text.split('\n').filter((line) => /^\s*export\s+\*/.test(line));
}

/**
 * Failures dropped without a word: an empty `catch {}` or a `.catch(() => {})` / `.catch(() => undefined)`
 * with no comment in it, on its line or the line above saying why nothing can be done.
 */
function silentCatches(text: string): number[] {
  const lines = text.split('\n');
  const found: number[] = [];
  const commented = (i: number) => (lines[i] ?? '').includes('//') || (lines[i - 1] ?? '').trim().startsWith('//');
  lines.forEach((line, i) => {
    if (/\.catch\(\s*(?:\(\s*\)\s*=>|function\s*\(\s*\))\s*(?:\{\s*\}|undefined|null)\s*\)/.test(line) && !commented(i))
      found.push(i + 1);
    const open = /\bcatch\s*(?:\([^)]*\))?\s*\{(.*)$/.exec(line);
    if (!open) return;
    const rest = (open[1] ?? '').trim();
    if (rest.startsWith('}')) {
      if (!commented(i)) found.push(i + 1);
      return;
    }
    if (rest !== '') return;
    let j = i + 1;
    while (j < lines.length && (lines[j] ?? '').trim() === '') j++;
    if ((lines[j] ?? '').trim() === '}') found.push(i + 1);
  });
  return found;
}

describe('the layout of src/', () => {
  const graph = srcGraph();

  it('puts every file in a folder of the plan', () => {
    expect([...graph.keys()].filter((path) => layerOf(path) === -1)).toEqual([]);
  });

  it('has no import that runs up the plan', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no import circles', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no file over 400 lines: a file that grows past it holds more than one job', () => {
    const long = sourceFiles(SRC)
      .map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('keeps core/ in folders by what they decide: at its root only the vocabulary every folder shares', () => {
    const atRoot = readdirSync(join(SRC, 'core')).filter((name) => name.endsWith('.ts'));
    expect(atRoot.sort()).toEqual(['account.ts', 'backoff.ts', 'ids.ts', 'reasons.ts', 'records.ts']);
  });

  it('enters call control through its entry: the Dialer and what it tells; the rest is calls/ own', () => {
    expect(pastTheEntry(graph, 'calls')).toEqual([]);
  });

  it('enters every folder that has an entry (index.ts) through it, and sms, speech, pbx, store and callbacks have one', () => {
    const entries = [...graph.keys()].filter((path) => path.endsWith('/index.ts')).map((path) => dirname(path));
    expect(entries).toEqual(expect.arrayContaining(['calls', 'sms', 'speech', 'pbx', 'store', 'callbacks', 'config']));
    expect(entries.flatMap((folder) => pastTheEntry(graph, folder))).toEqual([]);
  });

  it('has no function over ~80 lines: a longer one holds several jobs, each worth a name', () => {
    const long = sourceFiles(SRC).flatMap((file) =>
      longFunctions(readFileSync(file, 'utf8'), MAX_FUNCTION_LINES).map((found) => `${relative(SRC, file)}:${found}`),
    );
    expect(long).toEqual([]);
  });

  it("re-exports a whole module only at a folder's entry (index.ts): elsewhere, import from where it lives", () => {
    const stars = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((path) => !path.endsWith('index.ts'))
      .flatMap((path) => starExports(readFileSync(join(SRC, path), 'utf8')).map((line) => `${path}: ${line}`));
    expect(stars).toEqual([]);
  });

  it("keeps the call desk's parts its own: no public fields (its parts get narrow interfaces)", () => {
    expect(publicFields(readFileSync(join(SRC, 'calls/call-desk.ts'), 'utf8'), 'CallDesk')).toEqual([]);
  });

  it("keeps call state the desk's: no part calls back into it, and each record of a call has one writer", () => {
    const calls = sourceFiles(join(SRC, 'calls')).map((file) => ({
      file: relative(SRC, file),
      text: readFileSync(file, 'utf8'),
    }));
    // The desk's parts return what happened (a placement, a flow action, findings); only the desk applies it.
    const parts = calls.filter(({ file }) => !['calls/call-desk.ts', 'calls/dialer.ts'].includes(file));
    expect(parts.flatMap(({ file, text }) => callsBack(text).map((name) => `${file}: ${name}`))).toEqual([]);
    // A session's records are read-only but to their writer, which alone takes a writable view (calls/call-session.ts).
    expect(recordWriters(calls)).toEqual({
      PlacementRecord: ['calls/call-placement.ts'],
      LineRecord: ['calls/call-flow.ts'],
      ScriptRecord: ['calls/call-script.ts'],
      DetectionRecord: ['calls/machine-detection.ts'],
    });
  });

  it('sees a part that calls back into the desk, and a record written from two files', () => {
    expect(callsBack('void place(desk, s);\n    desk.end(session, stop);\n  deps.pump();')).toEqual(['end', 'pump']);
    expect(
      recordWriters([
        { file: 'calls/a.ts', text: 'const line = session.line as LineRecord;' },
        { file: 'calls/b.ts', text: '(s.line as LineRecord).rang = true;' },
      ]),
    ).toEqual({ PlacementRecord: [], LineRecord: ['calls/a.ts', 'calls/b.ts'], ScriptRecord: [], DetectionRecord: [] });
  });

  it('drops no failure without a word: an empty catch logs its reason or says in a comment why nothing can be done', () => {
    const silent = sourceFiles(SRC).flatMap((file) =>
      silentCatches(readFileSync(file, 'utf8')).map((line) => `${relative(SRC, file)}:${line}`),
    );
    expect(silent).toEqual([]);
  });

  it('sees what it checks: an upward import and a circle are found', () => {
    const bad = new Map([
      ['core/a.ts', ['http/b.ts']],
      ['http/b.ts', ['core/a.ts']],
    ]);
    expect(upwardImports(bad)).toEqual(['core/a.ts -> http/b.ts']);
    expect(circles(bad)).toEqual([['core/a.ts', 'http/b.ts']]);
    expect(
      importsOf(join(SRC, 'http/x.ts'), "import type { A } from '../core/a.js';\nconst m = await import('./y.js');"),
    ).toEqual(['core/a.ts', 'http/y.ts']);
    expect(pastTheEntry(new Map([['app/t.ts', ['calls/index.ts', 'calls/call-desk.ts']]]), 'calls')).toEqual([
      'app/t.ts -> calls/call-desk.ts',
    ]);
    expect(
      publicFields(
        'class Desk {\n  readonly queue = 1;\n  private readonly a = 2;\n  get size(): number {\n}\n',
        'Desk',
      ),
    ).toEqual(['readonly queue = 1;']);
    expect(
      silentCatches(
        [
          'a().catch(() => {});',
          'b().catch(() => undefined);',
          'try { c(); } catch {}',
          'try {',
          '} catch {',
          '}',
          '// the socket is gone already: nothing to close',
          'd().catch(() => {});',
          'e().catch(() => {}); // best effort: the file may not exist',
          'f().catch((error) => log.debug("f failed", { error }));',
        ].join('\n'),
      ),
    ).toEqual([1, 2, 3, 5]);
    const body = (n: number) => Array.from({ length: n }, () => '  x();');
    expect(
      longFunctions(
        [
          'export async function big(',
          '  a: number,',
          '): Promise<void> {',
          ...body(80),
          '}',
          'const small = (a: number) => a + 1;',
          'class K {',
          '  async method(): Promise<void> {',
          ...body(3).map((l) => `  ${l}`),
          '  }',
          '}',
        ].join('\n'),
        80,
      ),
    ).toEqual(['big:84']);
    expect(starExports("export * from './a.js';\nexport { b } from './b.js';")).toEqual(["export * from './a.js';"]);
  });
});

/** The desk's operations a part calls on what it was handed (`desk.end(…)`, `deps.pump()`). */
function callsBack(text: string): string[] {
  return [...text.matchAll(/\b(?:desk|deps|inside)\??\.(end|enqueue|enqueueTogether|pump)\(/g)].map((m) => m[1]!);
}

/** For each record of a call's session, the files that take a writable view of it (`… as LineRecord`). */
function recordWriters(files: ReadonlyArray<{ file: string; text: string }>): Record<string, string[]> {
  const records = ['PlacementRecord', 'LineRecord', 'ScriptRecord', 'DetectionRecord'];
  return Object.fromEntries(
    records.map((record) => [
      record,
      files.filter(({ text }) => new RegExp(`\\bas ${record}\\b`).test(text)).map(({ file }) => file),
    ]),
  );
}
