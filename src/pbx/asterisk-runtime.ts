// Which Asterisk runs (the host's binary, or the provisioned root file system's) and how to run it:
// in the foreground on a configuration, and one CLI command against it through its control socket.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export type AsteriskRuntime = { kind: 'host'; binary: string } | { kind: 'rootfs'; rootfs: string };

/** Parses what scripts/provision-asterisk.sh prints: a root file system path, or "host". */
export function parseRuntime(line: string, hostBinary = '/usr/sbin/asterisk'): AsteriskRuntime {
  const text = line.trim();
  if (text === 'host') return { kind: 'host', binary: hostBinary };
  if (text.startsWith('/')) return { kind: 'rootfs', rootfs: text };
  throw new Error(`unknown Asterisk runtime "${text}": run ringhook provision`);
}

/** Reads the runtime recorded by the provisioning script in its cache dir. */
export async function readProvisionedRuntime(cacheDir: string): Promise<AsteriskRuntime> {
  const file = join(cacheDir, 'asterisk-runtime');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new Error(`Asterisk is not provisioned (no ${file}): run ringhook provision (as root)`);
  }
  return parseRuntime(text);
}

// Runs inside the new mount namespace. Arguments: ROOTFS, N, N directories to bind at the same
// absolute path inside, then the command. /dev is bound recursively (pts, shm, mqueue).
const CHROOT_LAUNCHER = `set -e
root=$1; n=$2; shift 2
mount --bind /proc "$root/proc"
mount --rbind /dev "$root/dev"
for f in /etc/resolv.conf /etc/hosts; do
  if [ -f "$f" ] && [ -f "$root$f" ]; then mount --bind "$f" "$root$f"; fi
done
while [ "$n" -gt 0 ]; do
  mkdir -p "$root$1"; mount --bind "$1" "$root$1"; shift; n=$((n - 1))
done
exec chroot "$root" "$@"`;

/**
 * How to run Asterisk in the foreground on a configuration: the host's binary, or the root file
 * system's in a private mount namespace with `binds` (absolute folders) seen at the same paths.
 */
export function asteriskCommand(
  runtime: AsteriskRuntime,
  configFile: string,
  binds: string[],
): { file: string; args: string[] } {
  const asteriskArgs = ['-f', '-n', '-C', configFile];
  if (runtime.kind === 'host') return { file: runtime.binary, args: asteriskArgs };
  const userNamespace = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];
  return {
    file: 'unshare',
    args: [
      ...userNamespace,
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      CHROOT_LAUNCHER,
      'ringhook-asterisk',
      runtime.rootfs,
      String(binds.length),
      ...binds,
      '/usr/sbin/asterisk',
      ...asteriskArgs,
    ],
  };
}

/**
 * How to run one CLI command (`asterisk -rx`) against a running Asterisk through its control
 * socket: a root file system's Asterisk is reached inside its mount namespace (and its user
 * namespace when ringhook is not root) with nsenter.
 */
export function asteriskCliCommand(
  runtime: AsteriskRuntime,
  pid: number,
  configFile: string,
  command: string,
): { file: string; args: string[] } {
  const cli = ['-C', configFile, '-rx', command];
  if (runtime.kind === 'host') return { file: runtime.binary, args: cli };
  const userNamespace = process.getuid?.() === 0 ? [] : ['--user', '--preserve-credentials'];
  return {
    file: 'nsenter',
    args: ['--target', String(pid), ...userNamespace, '--mount', '--root', '--wd=/', '/usr/sbin/asterisk', ...cli],
  };
}
