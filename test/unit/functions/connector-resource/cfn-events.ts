import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

/** CloudFormation's requests to the Connector custom resource, as the unit tests send them. */

export const CONFIG = { 'connector.class': 'datagen', 'kafka.topic': 'orders' };

export const common = {
  ServiceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:handler',
  ResponseURL: 'https://example.invalid/response',
  StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/test/1',
  RequestId: 'request-1',
  LogicalResourceId: 'Orders',
  ResourceType: 'Custom::KafkaConnector',
};

export const props = (
  name: string,
  config: Record<string, string> = CONFIG,
  state = 'RUNNING',
) => ({
  ServiceToken: common.ServiceToken,
  ConnectorName: name,
  Config: config,
  InitialState: state,
});

export function createEvent(name: string, state = 'RUNNING'): CloudFormationCustomResourceEvent {
  return { ...common, RequestType: 'Create', ResourceProperties: props(name, CONFIG, state) };
}

export function updateEvent(
  physical: string,
  next: ReturnType<typeof props>,
  old: ReturnType<typeof props>,
): CloudFormationCustomResourceEvent {
  return {
    ...common,
    RequestType: 'Update',
    PhysicalResourceId: physical,
    ResourceProperties: next,
    OldResourceProperties: old,
  };
}

export function deleteEvent(physical: string): CloudFormationCustomResourceEvent {
  return {
    ...common,
    RequestType: 'Delete',
    PhysicalResourceId: physical,
    ResourceProperties: props(physical),
  };
}
