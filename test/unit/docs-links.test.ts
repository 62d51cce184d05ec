// Every relative link in README.md and docs/*.md must lead somewhere: the file exists and, when the
// link names an anchor, a heading (GitHub's slug) or an <a id> of that file has it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function pages(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f));
  return ['README.md', ...docs];
}

/** The text outside fenced code blocks and inline code spans. */
function prose(markdown: string): string[] {
  let fenced = false;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      lines.push('');
      continue;
    }
    lines.push(fenced ? '' : line);
  }
  return lines;
}

/** GitHub's heading anchor: the heading's text, lower case, punctuation dropped, spaces as hyphens. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(fs.readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1]!);
      const n = seen.get(slug) ?? 0;
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
      seen.set(slug, n + 1);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

function linksOf(file: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  prose(fs.readFileSync(file, 'utf8')).forEach((text, i) => {
    const withoutCode = text.replace(/`[^`]*`/g, '');
    for (const m of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ line: i + 1, target: m[1]! });
  });
  return links;
}

function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const page of pages()) {
    const from = path.join(ROOT, page);
    for (const { line, target } of linksOf(from)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
      const [file, anchor] = target.split('#', 2) as [string, string | undefined];
      const to = file === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(file));
      const where = `${page}:${line} → ${target}`;
      if (!fs.existsSync(to)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!to.endsWith('.md') || fs.statSync(to).isDirectory()) {
        broken.push(`${where}: an anchor into a file that is not a markdown page`);
        continue;
      }
      if (!anchorsOf(to).has(anchor)) broken.push(`${where}: no heading or anchor "${anchor}" there`);
    }
  }
  return broken;
}

describe('links in README.md and docs/', () => {
  it('turns a heading into the anchor GitHub gives it', () => {
    expect(githubSlug('Decisions where SPEC.md is silent')).toBe('decisions-where-specmd-is-silent');
    expect(githubSlug("Save ringhook's number")).toBe('save-ringhooks-number');
    expect(githubSlug('Kannel (HTTP, `kannel` preset)')).toBe('kannel-http-kannel-preset');
    expect(githubSlug('Encrypted calls: TLS and SRTP')).toBe('encrypted-calls-tls-and-srtp');
    expect(githubSlug('Health, metrics, logs, backups')).toBe('health-metrics-logs-backups');
  });

  it('finds a broken link (a missing file, a missing anchor)', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'test', '.links-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.md'), '# A page\n\n## Two words\n');
      const a = path.join(dir, 'a.md');
      expect(anchorsOf(a).has('two-words')).toBe(true);
      expect(anchorsOf(a).has('three-words')).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every relative link resolves to an existing file and heading', () => {
    const broken = brokenLinks();
    expect(broken, `broken links:\n${broken.join('\n')}`).toEqual([]);
  });
});
