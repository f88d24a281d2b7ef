import { Token } from 'aws-cdk-lib';
import {
  GatewayVpcEndpoint,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpoint,
  InterfaceVpcEndpointAwsService,
  type ISubnet,
  type IVpc,
  type SubnetSelection,
} from 'aws-cdk-lib/aws-ec2';
import type { IConstruct } from 'constructs';

/** What decides the endpoints beyond the ones every deployment needs. */
export interface EndpointOptions {
  /**
   * The functions or the pollers read a secret (SCRAM credentials, a private CA, the connectors'
   * database passwords).
   */
  readonly readsSecrets: boolean;
}

/**
 * The interface endpoints a VPC without NAT needs (the gateway endpoints, DynamoDB and S3, come
 * always), each with its reason below (the functions and Lambda's Kafka pollers: AWS Lambda developer
 * guide, "Configuring your Amazon MSK cluster and Amazon VPC network for Lambda" and its
 * self-managed Kafka counterpart). Not among them: KMS (the table key and the SCRAM secret's key
 * are used by DynamoDB and Secrets Manager on the functions' behalf, `kms:ViaService`),
 * CloudWatch Logs (Lambda ships the functions' logs, and the EMF metrics in them, from outside
 * their network interfaces) and SQS (Lambda itself sends failed source-task dispatches to the
 * queue). Connector configs reaching other services (`${secretsmanager:...}` without SCRAM
 * or `databases`, `${ssm:...}`, other buckets' regions, DynamoDB Streams) and X-Ray (`functions.tracing`) need
 * endpoints of their own.
 */
export function vpcEndpointNeeds(options: EndpointOptions): InterfaceVpcEndpointAwsService[] {
  return [
    // The enumerator invokes source tasks and manages sink mappings, the api invokes the
    // enumerator, and Lambda's Kafka pollers in the VPC call Lambda.
    InterfaceVpcEndpointAwsService.LAMBDA,
    // Lambda's Kafka pollers (MSK and self-managed) in the VPC call STS. The functions call no
    // STS: MSK IAM tokens are signed with the credentials Lambda gives them.
    InterfaceVpcEndpointAwsService.STS,
    // The functions and pollers read the SCRAM secret; the pollers read the CA secret; the
    // connectors read their database passwords (`${secretsmanager:...}`).
    ...(options.readsSecrets ? [InterfaceVpcEndpointAwsService.SECRETS_MANAGER] : []),
  ];
}

/** The Availability Zone of a subnet, undefined when it was imported without one. */
function zoneOf(subnet: ISubnet): string | undefined {
  try {
    const zone = subnet.availabilityZone;
    return Token.isUnresolved(zone) ? undefined : zone;
  } catch {
    return undefined;
  }
}

/** The route table of a subnet, undefined when it was imported without one. */
function routeTableOf(subnet: ISubnet): string | undefined {
  try {
    return subnet.routeTable.routeTableId;
  } catch {
    return undefined;
  }
}

/**
 * Creates, in `vpc`, the DynamoDB and S3 gateway endpoints on the route tables of
 * `selection`'s subnets, and the interface endpoints of {@link vpcEndpointNeeds} in one of its
 * subnets per Availability Zone (an interface endpoint takes no more), with private DNS and a
 * security group admitting HTTPS from the VPC's CIDR (Lambda's Kafka pollers in the cluster's
 * subnets use them too when the cluster is in this VPC). Returns them.
 */
export function createVpcEndpoints(
  vpc: IVpc,
  selection: SubnetSelection,
  options: EndpointOptions,
): IConstruct[] {
  const { subnets } = vpc.selectSubnets(selection);
  const unrouted = subnets.filter((s) => routeTableOf(s) === undefined).map((s) => s.subnetId);
  if (unrouted.length > 0) {
    throw new Error(
      `KafkaAccess: vpcEndpoints needs the route tables of the subnets ${unrouted.join(', ')} ` +
        'for the DynamoDB and S3 gateway endpoints: select them from a looked-up VPC, or import ' +
        'them with Subnet.fromSubnetAttributes({ subnetId, routeTableId, availabilityZone })',
    );
  }
  // Children of the VPC, as `vpc.addGatewayEndpoint` makes them: the logical ids of earlier
  // deployments stay (a replaced interface endpoint would clash on its private DNS name).
  const endpoints: IConstruct[] = [];
  for (const [id, service] of [
    ['DynamoDbEndpoint', GatewayVpcEndpointAwsService.DYNAMODB],
    ['S3Endpoint', GatewayVpcEndpointAwsService.S3],
  ] as const) {
    endpoints.push(new GatewayVpcEndpoint(vpc, id, { vpc, service, subnets: [{ subnets }] }));
  }
  const zones = new Set<string>();
  const perZone = subnets.filter((subnet) => {
    const zone = zoneOf(subnet);
    if (zone === undefined) return true;
    if (zones.has(zone)) return false;
    zones.add(zone);
    return true;
  });
  for (const service of vpcEndpointNeeds(options)) {
    endpoints.push(
      new InterfaceVpcEndpoint(vpc, `${service.shortName}Endpoint`, {
        vpc,
        service,
        subnets: { subnets: perZone },
        privateDnsEnabled: true,
      }),
    );
  }
  return endpoints;
}
