// A home network behind a NAT router and a provider on the internet, made of network namespaces
// for one test and removed after it: `home` (10.77.0.2/24, its default route through the router),
// `router` (10.77.0.1 inside, 203.0.113.1 outside, nftables masquerade out, and the firewall of a
// home router: from the outside, only replies to what went out come in), `provider`
// (203.0.113.2/24, no route back to the private network: only what the NAT maps comes home).
// Only documentation and private addresses, and only inside these namespaces.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Packet, readPackets } from './pcap.js';

export const LAB = {
  home: '10.77.0.2',
  routerInside: '10.77.0.1',
  routerOutside: '203.0.113.1',
  provider: '203.0.113.2',
} as const;

export interface NetLab {
  home: string;
  router: string;
  provider: string;
  /** The command prefix that runs a program in a namespace. */
  inside(ns: string): string[];
  /** Runs a command in a namespace and returns its output. */
  run(ns: string, command: string, args: string[]): string;
  /** The router forgets idle UDP bindings after this many seconds. */
  setUdpTimeout(seconds: number): void;
  /** Captures what crosses the router's outside interface (tcpdump) until `stop`. */
  captureOutside(): Promise<{ stop(): Promise<Packet[]> }>;
  remove(): void;
}

/**
 * Whether the network namespace of process `pid` (a program started with `inside`) has UDP `port`
 * bound on `address`: its own /proc/PID/net/udp, read without starting `ip netns exec cat` at each poll.
 */
export function udpBoundIn(pid: number | undefined, address: string, port: number): boolean {
  // /proc/net/udp writes an IPv4 address as its bytes in host (little-endian) order.
  const hex = `${Buffer.from(address.split('.').map(Number)).readUInt32LE(0).toString(16).toUpperCase().padStart(8, '0')}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  try {
    return fs.readFileSync(`/proc/${pid}/net/udp`, 'utf8').includes(` ${hex} `);
  } catch {
    return false;
  }
}

const sh = (command: string, args: string[]) =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export function createNetLab(): NetLab {
  const tag = `${process.pid % 100_000}`;
  const home = `rh-home-${tag}`;
  const router = `rh-rtr-${tag}`;
  const provider = `rh-prov-${tag}`;
  const inside = (ns: string) => ['ip', 'netns', 'exec', ns];
  const run = (ns: string, command: string, args: string[]) => sh('ip', ['netns', 'exec', ns, command, ...args]);
  const remove = () => {
    for (const ns of [home, router, provider]) {
      try {
        sh('ip', ['netns', 'del', ns]);
      } catch {
        // Not made (a failure half-way), or already gone.
      }
    }
  };
  remove();
  try {
    for (const ns of [home, router, provider]) {
      sh('ip', ['netns', 'add', ns]);
      run(ns, 'ip', ['link', 'set', 'lo', 'up']);
    }
    // Interface names live in their namespace: the same short names in each lab.
    sh('ip', [
      'link',
      'add',
      `rhh${tag}`,
      'netns',
      home,
      'type',
      'veth',
      'peer',
      'name',
      `rhri${tag}`,
      'netns',
      router,
    ]);
    sh('ip', [
      'link',
      'add',
      `rhro${tag}`,
      'netns',
      router,
      'type',
      'veth',
      'peer',
      'name',
      `rhp${tag}`,
      'netns',
      provider,
    ]);
    run(home, 'ip', ['link', 'set', `rhh${tag}`, 'name', 'eth0']);
    run(router, 'ip', ['link', 'set', `rhri${tag}`, 'name', 'inside']);
    run(router, 'ip', ['link', 'set', `rhro${tag}`, 'name', 'outside']);
    run(provider, 'ip', ['link', 'set', `rhp${tag}`, 'name', 'eth0']);
    run(home, 'ip', ['addr', 'add', `${LAB.home}/24`, 'dev', 'eth0']);
    run(router, 'ip', ['addr', 'add', `${LAB.routerInside}/24`, 'dev', 'inside']);
    run(router, 'ip', ['addr', 'add', `${LAB.routerOutside}/24`, 'dev', 'outside']);
    run(provider, 'ip', ['addr', 'add', `${LAB.provider}/24`, 'dev', 'eth0']);
    run(home, 'ip', ['link', 'set', 'eth0', 'up']);
    run(router, 'ip', ['link', 'set', 'inside', 'up']);
    run(router, 'ip', ['link', 'set', 'outside', 'up']);
    run(provider, 'ip', ['link', 'set', 'eth0', 'up']);
    run(home, 'ip', ['route', 'add', 'default', 'via', LAB.routerInside]);
    run(router, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
    run(router, 'nft', [
      'add table ip nat; add chain ip nat post { type nat hook postrouting priority 100; }; add rule ip nat post oifname "outside" masquerade',
    ]);
    // Dropped before conntrack confirms them, such packets leave no entry behind either.
    run(router, 'nft', [
      [
        'add table inet filter',
        ...['input', 'forward'].flatMap((hook) => [
          `add chain inet filter ${hook} { type filter hook ${hook} priority 0; policy accept; }`,
          `add rule inet filter ${hook} iifname "outside" ct state established,related accept`,
          `add rule inet filter ${hook} iifname "outside" drop`,
        ]),
      ].join('; '),
    ]);
  } catch (error) {
    remove();
    throw error;
  }
  return {
    home,
    router,
    provider,
    inside,
    run,
    async captureOutside() {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rh-lab-capture-')), 'outside.pcap');
      const tcpdump = spawn(
        'ip',
        ['netns', 'exec', router, 'tcpdump', '-i', 'outside', '-n', '-s', '0', '-U', '-w', file],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let said = '';
      await new Promise<void>((resolve, reject) => {
        tcpdump.stderr!.on('data', (chunk: Buffer) => {
          said += chunk.toString();
          if (said.includes('listening on')) resolve();
        });
        tcpdump.once('exit', (code) => reject(new Error(`tcpdump exited (${code}): ${said}`)));
      });
      return {
        async stop() {
          const exited = new Promise((resolve) => tcpdump.once('exit', resolve));
          tcpdump.kill('SIGINT');
          await exited;
          const packets = readPackets(fs.readFileSync(file));
          fs.rmSync(path.dirname(file), { recursive: true, force: true });
          return packets;
        },
      };
    },
    setUdpTimeout(seconds) {
      run(router, 'sysctl', [
        '-qw',
        `net.netfilter.nf_conntrack_udp_timeout=${seconds}`,
        `net.netfilter.nf_conntrack_udp_timeout_stream=${seconds}`,
      ]);
    },
    remove,
  };
}
