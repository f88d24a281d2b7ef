import { type ISecurityGroup, Port } from 'aws-cdk-lib/aws-ec2';
import type { FunctionPlacement } from './connect-function.js';

/** PostgreSQL's port, the default of {@link ConnectorDatabase.port}. */
export const POSTGRES_PORT = 5432;

/**
 * A database the connectors reach from the functions' VPC: an RDS instance, an Aurora cluster
 * or an RDS Proxy, by the security group it sits in.
 */
export interface ConnectorDatabase {
  /**
   * The database's security group (`rds.DatabaseInstance`'s, an Aurora cluster's, or one
   * imported with `SecurityGroup.fromSecurityGroupId`): it gets an ingress rule admitting the
   * functions' security groups on `port`.
   */
  readonly securityGroup: ISecurityGroup;
  /** @default 5432 (PostgreSQL) */
  readonly port?: number;
}

/**
 * Network access from the functions to the connectors' databases: each database's security group
 * admits the functions' security groups on its port (and a functions' group that does not allow
 * all outbound traffic gets the matching egress rule). The rules belong to the databases'
 * security groups (an imported group's is an `AWS::EC2::SecurityGroupIngress` beside it). All
 * four functions share one placement, and each may reach a database: the api (`DELETE
 * /connectors/{c}/offsets` of a CDC connector drops its replication slot), the enumerator (a
 * connector's `taskConfigs` may list tables) and both task functions.
 *
 * @throws when the functions are not in a VPC (`placement` undefined), or on a bad port
 */
export function allowDatabaseAccess(
  placement: FunctionPlacement | undefined,
  databases: readonly ConnectorDatabase[],
): void {
  if (placement === undefined) {
    throw new Error(
      'ServerlessConnect: databases needs the functions in a VPC (kafka.vpc; the default app: ' +
        'context vpcId, with subnetIds for subnets routed to the database). RDS and Aurora ' +
        'databases sit in private subnets, which functions outside the VPC cannot reach.',
    );
  }
  for (const database of databases) {
    const port = database.port ?? POSTGRES_PORT;
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new Error(`ServerlessConnect: databases port must be 1 to 65535 (got ${port})`);
    }
    for (const group of placement.securityGroups) {
      database.securityGroup.connections.allowFrom(
        group,
        Port.tcp(port),
        'serverless-connect functions to a connectors database',
      );
    }
  }
}
