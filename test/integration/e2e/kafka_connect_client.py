"""Drives a Kafka Connect REST API with kafka-connect-py (the PyPI client), step by step.

Usage: python kafka_connect_client.py <url> <plan.json>

The plan names a source and a sink connector with their configs. Each step prints one JSON
line {"step": ..., "result": ...}; a step that raises prints {"step": ..., "error": ...} and
the script exits 1. The test on the other side checks the lines and the state over HTTP.
"""

import json
import sys
import time

from kafka_connect import KafkaConnect


def emit(step, result=None, error=None):
    line = {"step": step}
    if error is not None:
        line["error"] = error
    else:
        line["result"] = result
    print(json.dumps(line), flush=True)


def wait_for(client, name, predicate, timeout=30.0):
    """Polls the connector's status until predicate(status) holds; returns the last status."""
    deadline = time.time() + timeout
    status = client.get_connector_status(name)
    while not predicate(status):
        if time.time() > deadline:
            raise TimeoutError(f"{name} never reached the expected state: {json.dumps(status)}")
        time.sleep(0.2)
        status = client.get_connector_status(name)
    return status


def all_in(state, tasks=1):
    def check(status):
        states = [t["state"] for t in status["tasks"]]
        return status["connector"]["state"] == state and len(states) == tasks and all(
            s == state for s in states
        )

    return check


def main():
    url, plan_file = sys.argv[1], sys.argv[2]
    with open(plan_file) as f:
        plan = json.load(f)
    client = KafkaConnect(url=url)
    source, sink = plan["source"], plan["sink"]
    steps = [
        ("info", lambda: client.get_cluster_info()),
        ("create-source", lambda: client.create_connector(source)),
        ("create-sink", lambda: client.create_connector(sink)),
        ("list", lambda: client.list_connectors()),
        ("list-expand-status", lambda: client.list_connectors(expand="status")),
        ("status-running", lambda: wait_for(client, source["name"], all_in("RUNNING"))),
        ("sink-status-running", lambda: wait_for(client, sink["name"], all_in("RUNNING"))),
        ("pause", lambda: client.pause_connector(source["name"])),
        ("status-paused", lambda: wait_for(client, source["name"], all_in("PAUSED"))),
        ("resume", lambda: client.resume_connector(source["name"])),
        ("status-resumed", lambda: wait_for(client, source["name"], all_in("RUNNING"))),
        (
            "restart",
            lambda: client.restart_connector(source["name"], include_tasks=True, only_failed=False),
        ),
        ("status-restarted", lambda: wait_for(client, source["name"], all_in("RUNNING"))),
        ("tasks", lambda: client.list_connector_tasks(source["name"])),
        ("delete-sink", lambda: client.delete_connector(sink["name"])),
        ("delete-source", lambda: client.delete_connector(source["name"])),
        ("list-after-delete", lambda: client.list_connectors()),
    ]
    for step, action in steps:
        try:
            emit(step, action())
        except Exception as error:  # noqa: BLE001 - every failure is reported to the test
            emit(step, error=f"{type(error).__name__}: {error}")
            sys.exit(1)


if __name__ == "__main__":
    main()
