import { readdir, readFile, readlink } from 'node:fs/promises';

/** The process listening on a TCP port, as far as this user may see it. */
export interface PortHolder {
  readonly pid: number;
  /** The executable's name (`/proc/<pid>/comm`): `node`, `java`; never its arguments. */
  readonly command: string;
  /** True when it is `npm start` of this project (`local/main.ts`). */
  readonly npmStart: boolean;
}

const LISTEN = '0A';

/** Socket inodes listening on `port` (`/proc/net/tcp` and `tcp6`). */
async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      const inode = fields[9];
      if (local === undefined || inode === undefined || fields[3] !== LISTEN) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) {
        inodes.add(inode);
      }
    }
  }
  return inodes;
}

/** The process whose open files include one of `sockets`, or undefined. */
async function ownerOf(sockets: ReadonlySet<string>): Promise<number | undefined> {
  const pids = (await readdir('/proc').catch(() => [])).filter((e) => /^\d+$/.test(e));
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && sockets.has(inode)) return Number(pid);
    }
  }
  return undefined;
}

/**
 * Who listens on `port`, read from `/proc` (Linux; elsewhere, or for another user's process,
 * undefined). Only asked after a listen failed, so the scan of `/proc` costs nothing otherwise.
 */
export async function portHolder(port: number): Promise<PortHolder | undefined> {
  const sockets = await listeningInodes(port);
  if (sockets.size === 0) return undefined;
  const pid = await ownerOf(sockets);
  if (pid === undefined) return undefined;
  const command = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim();
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return { pid, command, npmStart: cmdline.split('\0').some((a) => a.endsWith('local/main.ts')) };
}
