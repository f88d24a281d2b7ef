import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { acknowledgeWildcards } from './iam-wildcards.js';

/** Each role's statements by `Sid`, with the resources they hold. */
const statements = new WeakMap<
  IRole,
  Map<string, { statement: PolicyStatement; held: Set<string> }>
>();

/**
 * Lets `role` do `actions` on `resources` through one statement `sid` per role, shared by every
 * grant of that `sid` (IAM wants a policy's `Sid`s unique): each grant adds its resources, and
 * their wildcards are acknowledged with the `sid`'s reason (`iam-wildcards.ts`). Used by the
 * deployment's grants and the `Connector` constructs' alike, so the two never duplicate a `Sid`.
 */
export function grantBySid(
  role: IRole,
  sid: string,
  actions: readonly string[],
  resources: readonly string[],
): void {
  let bySid = statements.get(role);
  if (bySid === undefined) {
    bySid = new Map();
    statements.set(role, bySid);
  }
  let grant = bySid.get(sid);
  if (grant === undefined) {
    grant = { statement: new PolicyStatement({ sid, actions: [...actions] }), held: new Set() };
    bySid.set(sid, grant);
    role.addToPrincipalPolicy(grant.statement);
  }
  const added = resources.filter((resource) => !grant.held.has(resource));
  for (const resource of added) grant.held.add(resource);
  if (added.length > 0) grant.statement.addResources(...added);
  acknowledgeWildcards(role, sid, added);
}
