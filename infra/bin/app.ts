import { createApp } from '../lib/serverless-connect-stack.js';

/**
 * The default serverless-connect app (`cdk.json` → `npx tsx infra/bin/app.ts`): one stack
 * configured from CDK context; see infra/README.md for the keys. The CDK CLI synthesizes it when
 * the process exits.
 */
createApp();
