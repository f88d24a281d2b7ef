import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import {
  type ISecurityGroup,
  type IVpc,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
} from 'aws-cdk-lib/aws-ec2';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';
import { type FunctionPlacement, networkInterfaceStatements } from './connect-function.js';
import { mskIamStatements } from './msk-iam.js';
import { createVpcEndpoints, type EndpointOptions } from './vpc-endpoints.js';

/** How the functions and the sink mappings authenticate to Kafka. */
export type KafkaAuth =
  | { readonly mode: 'none' }
  | {
      readonly mode: 'scram';
      /**
       * The complete ARN (with its random suffix) of a Secrets Manager secret holding
       * `{"username": ..., "password": ...}`. MSK requires a name starting `AmazonMSK_` and a
       * customer-managed KMS key.
       */
      readonly secretArn: string;
      /** @default 'SCRAM-SHA-512' (the only one MSK supports) */
      readonly mechanism?: 'SCRAM-SHA-512' | 'SCRAM-SHA-256';
      /**
       * The customer-managed KMS key encrypting the secret; the functions get `kms:Decrypt` on it
       * through Secrets Manager only.
       * @default - the secret uses the AWS-managed key
       */
      readonly secretKeyArn?: string;
    }
  /** MSK IAM access control (SASL/OAUTHBEARER with a SigV4 token); needs `mskClusterArn`. */
  | { readonly mode: 'iam' };

/** The Kafka cluster serverless-connect reads and writes. */
export interface KafkaAccessProps {
  /**
   * Bootstrap brokers, `host:port`. The functions' Kafka clients need them for MSK too (MSK IAM
   * uses port 9098, SCRAM 9096, TLS 9094).
   */
  readonly bootstrapServers: readonly string[];
  /**
   * The MSK cluster's ARN. Sink mappings then use the MSK event source, and MSK IAM permissions
   * are scoped to this cluster.
   * @default - a self-managed cluster reached through `bootstrapServers`
   */
  readonly mskClusterArn?: string;
  /** @default { mode: 'none' } */
  readonly auth?: KafkaAuth;
  /**
   * TLS to the brokers.
   * @default - true for MSK or any authenticated cluster, false otherwise
   */
  readonly tls?: boolean;
  /**
   * The PEM certificate of the private CA that signed a self-managed cluster's broker
   * certificates (MSK brokers' certificates chain to a public CA: leave it out). The functions
   * trust it through `NODE_EXTRA_CA_CERTS` (a layer holding it at {@link KAFKA_CA_PATH}), the
   * sink mappings through a `SERVER_ROOT_CA_CERTIFICATE` secret the construct makes of it (a CA
   * certificate is public: it is stored in plain text). Needs TLS.
   * @default - the brokers' certificates chain to a public CA
   */
  readonly caCertificatePem?: string;
  /**
   * The VPC of a private cluster: every function runs in it, and self-managed sink mappings
   * reach the brokers through it.
   * @default - functions outside any VPC (the brokers must be reachable from the internet)
   */
  readonly vpc?: IVpc;
  /**
   * @default - the VPC's private subnets with egress; in a VPC without any (no NAT gateway),
   * its isolated subnets
   */
  readonly vpcSubnets?: SubnetSelection;
  /** @default - one new security group allowing all outbound traffic, no inbound */
  readonly securityGroups?: ISecurityGroup[];
  /**
   * Create the VPC endpoints the functions and mappings need when the subnets have no NAT:
   * gateway endpoints for DynamoDB and S3 (free, on the route tables of `vpcSubnets`) and
   * interface endpoints (billed per AZ-hour, one subnet of `vpcSubnets` per AZ, private DNS,
   * HTTPS from the VPC's CIDR) for the services listed by `vpcEndpointNeeds` (vpc-endpoints.ts).
   * @default false
   */
  readonly vpcEndpoints?: boolean;
  /**
   * MSK IAM: the topic names (wildcards allowed) the functions may describe, read, write and
   * create. Must cover the connectors' topics, the offsets topic and dead letter queue topics.
   * @default ['*'] - every topic of the cluster
   */
  readonly topicPatterns?: readonly string[];
}

/** Where the functions find `caCertificatePem` (the layer's file, under /opt). */
export const KAFKA_CA_PATH = '/opt/kafka-ca.pem';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/** One entry of Lambda's `SourceAccessConfigurations`. */
interface SourceAccessConfiguration {
  readonly Type: string;
  readonly URI: string;
}

/**
 * Kafka connectivity shared by every function: the environment the Kafka client reads, VPC
 * placement and security groups for private clusters, SASL/SCRAM secrets, MSK IAM permissions
 * (scoped to the cluster's topic, group and transactional-id ARNs), and what the sink function's
 * event source mappings need to poll the cluster.
 */
export class KafkaAccess extends Construct {
  readonly auth: KafkaAuth;
  readonly tls: boolean;
  readonly placement: FunctionPlacement | undefined;
  /** The layer holding `caCertificatePem`, for every function; undefined without one. */
  readonly caLayer: LayerVersion | undefined;
  readonly #caSecret: Secret | undefined;
  readonly #props: KafkaAccessProps;
  readonly #needs: Partial<EndpointOptions>;
  #endpoints: IConstruct[] = [];

  /**
   * @param needs what else the functions reach through `vpcEndpoints`: `readsSecrets` when the
   * connectors read Secrets Manager (their database passwords), besides SCRAM and a private CA.
   */
  constructor(
    scope: Construct,
    id: string,
    props: KafkaAccessProps,
    needs: Partial<EndpointOptions> = {},
  ) {
    super(scope, id);
    this.#props = props;
    this.#needs = needs;
    this.auth = props.auth ?? { mode: 'none' };
    if (props.bootstrapServers.length === 0) {
      throw new Error('KafkaAccess: bootstrapServers must list at least one host:port');
    }
    if (this.auth.mode === 'iam' && props.mskClusterArn === undefined) {
      throw new Error("KafkaAccess: auth mode 'iam' (MSK IAM) needs mskClusterArn");
    }
    if (
      this.auth.mode === 'scram' &&
      props.mskClusterArn !== undefined &&
      this.auth.mechanism === 'SCRAM-SHA-256'
    ) {
      throw new Error('KafkaAccess: MSK supports SASL/SCRAM with SCRAM-SHA-512 only');
    }
    this.tls = props.tls ?? (props.mskClusterArn !== undefined || this.auth.mode !== 'none');
    this.placement = props.vpc === undefined ? undefined : this.#placement(props.vpc);
    const pem = props.caCertificatePem;
    if (pem === undefined) {
      this.caLayer = undefined;
      this.#caSecret = undefined;
    } else {
      this.#checkCaCertificate(pem);
      const dir = mkdtempSync(join(tmpdir(), 'serverless-connect-kafka-ca-'));
      writeFileSync(join(dir, KAFKA_CA_PATH.replace('/opt/', '')), pem);
      this.caLayer = new LayerVersion(this, 'CaCertificateLayer', {
        code: Code.fromAsset(dir),
        description: "serverless-connect: the Kafka brokers' CA certificate (NODE_EXTRA_CA_CERTS)",
      });
      this.#caSecret = new Secret(this, 'CaCertificateSecret', {
        description:
          "serverless-connect: the Kafka brokers' CA certificate, for the sink mappings " +
          '(SERVER_ROOT_CA_CERTIFICATE)',
        secretObjectValue: { certificate: SecretValue.unsafePlainText(pem) },
      });
      Validations.of(this.#caSecret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The secret holds a CA certificate, which is public: it changes when the CA is replaced, there is nothing to rotate.',
      });
    }
  }

  #checkCaCertificate(pem: string): void {
    if (this.#props.mskClusterArn !== undefined) {
      throw new Error(
        "KafkaAccess: caCertificatePem is for self-managed clusters (MSK brokers' certificates chain to a public CA)",
      );
    }
    if (!this.tls) throw new Error('KafkaAccess: caCertificatePem needs tls');
    if (!PEM_CERTIFICATE.test(pem)) {
      throw new Error(
        'KafkaAccess: caCertificatePem must hold a PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)',
      );
    }
  }

  #placement(vpc: IVpc): FunctionPlacement {
    const vpcSubnets = this.#props.vpcSubnets ?? this.#defaultSubnets(vpc);
    const securityGroups = this.#props.securityGroups ?? [
      new SecurityGroup(this, 'FunctionsSecurityGroup', {
        vpc,
        description: 'serverless-connect functions and sink mappings: outbound to Kafka and AWS',
        allowAllOutbound: true,
      }),
    ];
    if (this.#props.vpcEndpoints === true) {
      this.#endpoints = createVpcEndpoints(vpc, vpcSubnets, {
        readsSecrets:
          this.auth.mode === 'scram' ||
          this.#props.caCertificatePem !== undefined ||
          this.#needs.readsSecrets === true,
      });
    }
    return { vpc, vpcSubnets, securityGroups };
  }

  /** Private subnets with egress; without any (no NAT), the isolated ones. */
  #defaultSubnets(vpc: IVpc): SubnetSelection {
    if (vpc.privateSubnets.length > 0) return { subnetType: SubnetType.PRIVATE_WITH_EGRESS };
    if (vpc.isolatedSubnets.length > 0) {
      if (this.#props.vpcEndpoints !== true) {
        Annotations.of(this).addWarningV2(
          'serverless-connect:isolated-subnets-without-endpoints',
          'The VPC has no subnets with egress: the functions run in its isolated subnets, which ' +
            'need VPC endpoints (vpcEndpoints: true, or endpoints of your own) to reach DynamoDB, ' +
            'S3, Lambda and STS.',
        );
      }
      return { subnetType: SubnetType.PRIVATE_ISOLATED };
    }
    throw new Error(
      'KafkaAccess: the VPC has no private subnets (with egress or isolated); give vpcSubnets',
    );
  }

  /** The VPC endpoints this construct added to the VPC (children of the VPC, not of this). */
  get vpcEndpoints(): readonly IConstruct[] {
    return this.#endpoints;
  }

  /** The environment every function's Kafka client reads (functions/_env.ts). */
  clientEnvironment(): Record<string, string> {
    const auth = this.auth;
    return {
      KAFKA_BROKERS: this.#props.bootstrapServers.join(','),
      KAFKA_SSL: String(this.tls),
      KAFKA_AUTH: auth.mode,
      ...(auth.mode === 'scram'
        ? {
            KAFKA_SASL_MECHANISM: (auth.mechanism ?? 'SCRAM-SHA-512').toLowerCase(),
            KAFKA_SASL_SECRET_ARN: auth.secretArn,
          }
        : {}),
      ...(auth.mode === 'iam' ? { KAFKA_SASL_MECHANISM: 'oauthbearer' } : {}),
      // Node reads it when the container starts (the layer is there by then).
      ...(this.caLayer === undefined ? {} : { NODE_EXTRA_CA_CERTS: KAFKA_CA_PATH }),
    };
  }

  /**
   * What the enumerator needs to create sink mappings (functions/enumerator/handler.ts):
   * `KAFKA_CLUSTER_ARN` for MSK, else `SINK_MAPPING_ACCESS_CONFIGURATIONS` (SCRAM secret, the
   * CA certificate's secret, VPC subnets and security group) when there is anything to
   * configure.
   */
  mappingEnvironment(): Record<string, string> {
    const arn = this.#props.mskClusterArn;
    const configs = this.#accessConfigurations();
    return {
      ...(arn === undefined ? {} : { KAFKA_CLUSTER_ARN: arn }),
      ...(configs.length === 0
        ? {}
        : { SINK_MAPPING_ACCESS_CONFIGURATIONS: Stack.of(this).toJsonString(configs) }),
    };
  }

  #accessConfigurations(): SourceAccessConfiguration[] {
    const configs: SourceAccessConfiguration[] = [];
    const auth = this.auth;
    if (auth.mode === 'scram') {
      const type =
        auth.mechanism === 'SCRAM-SHA-256' ? 'SASL_SCRAM_256_AUTH' : 'SASL_SCRAM_512_AUTH';
      configs.push({ Type: type, URI: auth.secretArn });
    }
    if (this.#caSecret !== undefined) {
      configs.push({ Type: 'SERVER_ROOT_CA_CERTIFICATE', URI: this.#caSecret.secretArn });
    }
    // MSK mappings reach the cluster through its own subnets and security groups.
    const placement = this.placement;
    if (this.#props.mskClusterArn === undefined && placement !== undefined) {
      for (const subnetId of placement.vpc.selectSubnets(placement.vpcSubnets).subnetIds) {
        configs.push({ Type: 'VPC_SUBNET', URI: `subnet:${subnetId}` });
      }
      for (const group of placement.securityGroups) {
        configs.push({
          Type: 'VPC_SECURITY_GROUP',
          URI: `security_group:${group.securityGroupId}`,
        });
      }
    }
    return configs;
  }

  /** The Kafka client's permissions: the SCRAM secret, or MSK IAM data-plane actions. */
  grantClient(grantee: IGrantable, transactionalIdPrefix: string): void {
    const auth = this.auth;
    const principal = grantee.grantPrincipal;
    if (auth.mode === 'scram') {
      principal.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'KafkaScramSecret',
          actions: ['secretsmanager:GetSecretValue'],
          resources: [auth.secretArn],
        }),
      );
      if (auth.secretKeyArn !== undefined) {
        principal.addToPrincipalPolicy(
          new PolicyStatement({
            sid: 'KafkaScramSecretKey',
            actions: ['kms:Decrypt'],
            resources: [auth.secretKeyArn],
            conditions: {
              StringEquals: {
                'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com`,
              },
            },
          }),
        );
      }
    }
    const clusterArn = this.#props.mskClusterArn;
    if (auth.mode === 'iam' && clusterArn !== undefined) {
      for (const statement of mskIamStatements(
        clusterArn,
        transactionalIdPrefix,
        this.#props.topicPatterns ?? ['*'],
      )) {
        principal.addToPrincipalPolicy(statement);
      }
    }
  }

  /**
   * What the sink function's execution role needs so that Lambda's Kafka pollers (the event
   * source mappings the enumerator creates) can reach the cluster: MSK metadata, and ENIs in the
   * cluster's VPC (MSK) or in ours (self-managed in a VPC). The SCRAM secret and MSK IAM data
   * actions come with {@link grantClient}.
   */
  grantEventSourcePoller(grantee: IGrantable): void {
    const principal = grantee.grantPrincipal;
    if (this.#caSecret !== undefined) {
      principal.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'KafkaCaCertificateSecret',
          actions: ['secretsmanager:GetSecretValue'],
          resources: [this.#caSecret.secretArn],
        }),
      );
    }
    const clusterArn = this.#props.mskClusterArn;
    if (clusterArn !== undefined) {
      principal.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'MskEventSourceMetadata',
          actions: [
            'kafka:DescribeCluster',
            'kafka:DescribeClusterV2',
            'kafka:GetBootstrapBrokers',
            'kafka:ListScramSecrets',
          ],
          resources: [clusterArn],
        }),
      );
    }
    // With a VPC the functions already carry these (ConnectFunction adds them with the placement).
    if (clusterArn !== undefined && this.placement === undefined) {
      for (const statement of networkInterfaceStatements(this)) {
        principal.addToPrincipalPolicy(statement);
      }
    }
  }
}
