import { DynamoFolderError } from '../services/dynalite.js';
import { type PortHolder, portHolder } from './port-holder.js';
import { readRuntimeInfo, shownPath } from './runtime-info.js';

/**
 * What `npm start` says, instead of a stack trace, when the start-up fails for a reason the user
 * can act on: a port taken (EADDRINUSE) or dynalite's folder damaged or in use.
 */

const PREFIX = 'serverless-connect could not start:';

/** The ports a user can choose, with the option and the variable choosing them. */
export interface ChosenPorts {
  readonly port: number;
  readonly s3Port: number;
}

function holderText(holder: PortHolder | undefined): string {
  if (holder === undefined) return 'another process';
  return holder.npmStart
    ? `another npm start (pid ${holder.pid})`
    : `another process (pid ${holder.pid}, ${holder.command})`;
}

/** One line for a server of ours that could not listen because its port is taken. */
export async function portTakenMessage(
  port: number,
  ports: ChosenPorts,
  holder: (port: number) => Promise<PortHolder | undefined> = portHolder,
): Promise<string> {
  const [what, choose] =
    port === ports.port
      ? ['the REST API', 'choose another with --port <n> or PORT=<n>']
      : port === ports.s3Port
        ? ['the local S3 server', 'choose another with --s3-port <n> or S3_PORT=<n>']
        : ['a local server', 'stop it or choose other ports'];
  const by = holderText(await holder(port).catch(() => undefined));
  return `${PREFIX} port ${port} (${what}) is taken by ${by}; ${choose}.`;
}

async function folderMessage(error: DynamoFolderError, dataDir: string): Promise<string> {
  if (error.problem === 'in-use') {
    const running = await readRuntimeInfo(dataDir);
    const who =
      running === undefined
        ? 'another process (another npm start on the same folder?)'
        : `another npm start (pid ${running.pid}, REST API ${running.url})`;
    return [
      `${PREFIX} the data folder ${shownPath(dataDir)} is in use by ${who}.`,
      'Stop it, or start this one on another folder (--data-dir <dir>) and other ports (--port <n>, --s3-port <n>).',
    ].join('\n');
  }
  return damagedStateMessage(error.folder, error.detail, PREFIX);
}

/**
 * What to do about dynalite's damaged `folder` (LevelDB's `detail`), after `lead` (`npm start`
 * could not start, or stopped).
 */
export function damagedStateMessage(folder: string, detail: string, lead: string): string {
  const shown = shownPath(folder);
  return [
    `${lead} the state in ${shown} is damaged (LevelDB: ${detail}).`,
    `Restore ${shown} from a copy, or move it aside (mv ${shown} ${shown}.damaged) or start on another folder (--data-dir <dir>): connectors must then be created again, and source connectors resume from the offsets they committed to Kafka.`,
  ].join('\n');
}

/**
 * The message for a start-up failure the user can act on, or undefined for any other error
 * (which is then reported with its stack).
 */
export async function startFailureMessage(
  error: unknown,
  ports: ChosenPorts,
  dataDir: string,
): Promise<string | undefined> {
  if (error instanceof DynamoFolderError) return folderMessage(error, dataDir);
  const { code, port } = (error ?? {}) as { code?: unknown; port?: unknown };
  if (code === 'EADDRINUSE' && typeof port === 'number') return portTakenMessage(port, ports);
  return undefined;
}
