/**
 * The price table the metering turns usage into dollars with: us-east-1 list prices, on demand,
 * arm64 Lambda, no free tier (docs/deploy.md, "Prices", cites each figure's source; a unit test
 * keeps that table and {@link DEFAULT_PRICES} equal). A deployment overrides any of them with
 * the JSON object of `COST_PRICES` (CDK option `costPrices`; docs/deploy.md).
 */
import { ConfigError } from '../../connect/errors.js';

/** Prices in USD per unit; `region` and `readOn` say which list they come from. */
export interface PriceTable {
  readonly region: string;
  /** When the prices were read (ISO date). */
  readonly readOn: string;
  /** Lambda, arm64, first tier (7.5 billion GB-seconds a month). */
  readonly lambdaArmPerGbSecond: number;
  readonly lambdaPerRequest: number;
  /** Memory at which a Lambda function has one vCPU (CPU share is proportional below it). */
  readonly lambdaMbPerVcpu: number;
  /** DynamoDB on demand, standard table class. */
  readonly dynamoPerWriteUnit: number;
  readonly dynamoPerReadUnit: number;
  /** S3 Standard: PUT, COPY, POST, LIST. */
  readonly s3PerTier1Request: number;
  /** S3 Standard: GET, SELECT, HEAD and every other request but DELETE (free). */
  readonly s3PerTier2Request: number;
  /** API Gateway REST API, first tier (333 million calls a month). */
  readonly apiGatewayPerCall: number;
  /** MSK Connect: one MCU (1 vCPU, 4 GiB) for an hour. */
  readonly mskConnectPerMcuHour: number;
}

/**
 * us-east-1 list prices, read on 2026-12-02 (docs/deploy.md's table). Plain literals, no arithmetic:
 * esbuild then drops the table from bundles that do not use it (the authorizer's).
 */
export const DEFAULT_PRICES: PriceTable = {
  region: 'us-east-1',
  readOn: '2026-12-02',
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerRequest: 0.0000002, // $0.20 per million
  lambdaMbPerVcpu: 1769,
  dynamoPerWriteUnit: 0.000000625, // $0.625 per million
  dynamoPerReadUnit: 0.000000125, // $0.125 per million
  s3PerTier1Request: 0.000005, // $0.005 per thousand
  s3PerTier2Request: 0.0000004, // $0.0004 per thousand
  apiGatewayPerCall: 0.0000035, // $3.50 per million
  mskConnectPerMcuHour: 0.11,
};

const TEXT_KEYS: readonly string[] = ['region', 'readOn'];

/**
 * {@link DEFAULT_PRICES} with the overrides of `json` (a JSON object whose keys are
 * {@link PriceTable}'s: numbers ≥ 0, `region` and `readOn` strings), or the defaults when `json`
 * is undefined or blank.
 *
 * @throws ConfigError on `key` (the variable or setting that held `json`) when it is not such
 *   an object, names an unknown price, or gives one a value that is not a finite number ≥ 0.
 * @example
 * ```ts
 * priceTableOf('{"region":"eu-west-1","lambdaArmPerGbSecond":0.0000133334}', 'COST_PRICES');
 * ```
 */
export function priceTableOf(json: string | undefined, key: string): PriceTable {
  if (json === undefined || json.trim() === '') return DEFAULT_PRICES;
  const invalid = (why: string) =>
    new ConfigError(`Invalid value ${json} for configuration ${key}: ${why}`, key);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw invalid('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('must be a JSON object of prices');
  }
  const table: Record<string, string | number> = { ...DEFAULT_PRICES };
  for (const [name, value] of Object.entries(parsed)) {
    if (!Object.hasOwn(DEFAULT_PRICES, name)) {
      throw invalid(`unknown price ${name}; known: ${Object.keys(DEFAULT_PRICES).join(', ')}`);
    }
    if (TEXT_KEYS.includes(name)) {
      if (typeof value !== 'string') throw invalid(`${name} must be a string`);
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw invalid(`${name} must be a finite number ≥ 0`);
    } else if (name === 'lambdaMbPerVcpu' && value === 0) {
      throw invalid('lambdaMbPerVcpu must be above 0');
    }
    table[name] = value;
  }
  return table as unknown as PriceTable;
}
