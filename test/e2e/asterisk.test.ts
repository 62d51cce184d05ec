// The managed Asterisk process: two instances side by side, stop without leftovers, supervision.
import { readdir, readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { provisionAsterisk, startTestAsterisk } from '../helpers/asterisk.js';

async function mountsMentioning(text: string): Promise<string[]> {
  return (await readFile('/proc/self/mounts', 'utf8')).split('\n').filter((l) => l.includes(text));
}

describe('managed Asterisk', () => {
  it('runs two instances on different ports at once, and stops both without leftovers', async () => {
    const runtime = await provisionAsterisk();
    const t0 = Date.now();
    const [a, b] = await Promise.all([startTestAsterisk(), startTestAsterisk()]);
    const bothReadyMs = Date.now() - t0;
    try {
      expect(a.ariUrl).not.toBe(b.ariUrl);
      for (const x of [a, b]) {
        const res = await fetch(`${x.ariUrl}/ari/asterisk/info`, {
          headers: { authorization: `Basic ${Buffer.from(`${x.ariUser}:${x.ariPassword}`).toString('base64')}` },
        });
        expect(res.status).toBe(200);
        // Asterisk writes its own files only under the run dir.
        expect((await readdir(`${x.dataDir}/asterisk/log`)).sort()).toContain('messages.log');
      }
      // One instance's password does not open the other.
      const wrong = await fetch(`${b.ariUrl}/ari/asterisk/info`, {
        headers: { authorization: `Basic ${Buffer.from(`${a.ariUser}:${a.ariPassword}`).toString('base64')}` },
      });
      expect(wrong.status).toBe(401);
      // The chroot's bind mounts live in the instance's own mount namespace, not the host's.
      expect(await mountsMentioning(a.dataDir)).toEqual([]);
      console.log(`two Asterisk instances ARI-ready in ${bothReadyMs} ms (${runtime.kind})`);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    for (const x of [a, b]) {
      expect(x.asterisk.pid).toBeUndefined();
      await expect(stat(x.dataDir)).rejects.toThrow();
      if (runtime.kind === 'rootfs') await expect(stat(`${runtime.rootfs}${x.dataDir}`)).rejects.toThrow();
    }
    if (runtime.kind === 'rootfs') expect(await mountsMentioning(runtime.rootfs)).toEqual([]);
  });

  it('restarts Asterisk when it dies, with backoff, until stopped', async () => {
    const x = await startTestAsterisk();
    try {
      const first = x.asterisk.pid!;
      const exits: boolean[] = [];
      x.asterisk.on('exit', (e) => exits.push(e.expected));
      for (let i = 1; i <= 2; i++) {
        const ready = new Promise<{ restarts: number; startedInMs: number }>((r) => x.asterisk.once('ready', r));
        process.kill(x.asterisk.pid!, 'SIGKILL');
        const r = await ready;
        expect(r.restarts).toBe(i);
        console.log(`restart ${i}: ARI ready ${r.startedInMs} ms after spawn`);
      }
      expect(x.asterisk.pid).not.toBe(first);
      expect(exits).toEqual([false, false]);
    } finally {
      await x.stop();
    }
  });
});
