// Lists the test files that cost the most CPU (theirs and their peers', from the cgroups that
// test/helpers/cpu-account.ts charged them to), then removes the cgroups. A cgroup that still has
// processes in it is a file that left something running: it is named. Usage: node scripts/test-cpu.mjs ROOT [OUT.json]
import fs from 'node:fs';
import path from 'node:path';

const [root, out] = process.argv.slice(2);
let names = [];
try {
  names = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
} catch {
  process.exit(0);
}
const files = names
  .map((name) => {
    const dir = path.join(root, name);
    const ns = Number(fs.readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8'));
    const left = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').trim().split('\n').filter(Boolean);
    return { name: name.replaceAll('~', '/'), dir, seconds: ns / 1e9, left };
  })
  .sort((a, b) => b.seconds - a.seconds);
if (out)
  fs.writeFileSync(
    out,
    JSON.stringify(
      files.map(({ name, seconds }) => ({ name, seconds })),
      null,
      1,
    ),
  );
const total = files.reduce((sum, f) => sum + f.seconds, 0);
console.log(`ringhook: the test files that cost the most CPU (with their peers; ${total.toFixed(0)} s of CPU in all):`);
for (const f of files.slice(0, 20)) console.log(`  ${f.seconds.toFixed(1).padStart(7)} s  ${f.name}`);
for (const f of files) {
  if (f.left.length > 0) {
    const commands = f.left.map((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        return pid;
      }
    });
    console.log(`ringhook: ${f.name} left ${f.left.length} process(es) running: ${commands.join(', ')}`);
    continue;
  }
  fs.rmdirSync(f.dir);
}
try {
  fs.rmdirSync(root);
} catch {
  // a file left processes in its cgroup: they were named above, and the root stays with them
}
