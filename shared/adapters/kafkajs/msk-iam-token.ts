import type { MskIamToken } from './auth.js';

/**
 * MSK IAM auth tokens from `aws-msk-iam-sasl-signer-js`, signed for `region` with the default
 * credential chain (in Lambda: the function's role). The signer, and the AWS SDK packages it
 * loads, are imported on the first call, so functions without MSK IAM never load them.
 */
export function mskIamTokenProvider(region: string): () => Promise<MskIamToken> {
  return async () => {
    const { generateAuthToken } = await import('aws-msk-iam-sasl-signer-js');
    const { token, expiryTime } = await generateAuthToken({ region });
    return { token, expiryTime };
  };
}
