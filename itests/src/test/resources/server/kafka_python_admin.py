# kafka-python's admin client as a user runs it, against one broker; prints one JSON object for
# OtherClientsIT. Usage: kafka_python_admin.py BOOTSTRAP TOPIC GROUP COUNT MODE
# MODE "all": create topics with configs, produce, consume in a group, list / describe groups, list
# group offsets, describe configs. MODE "alter": alter_configs of TOPIC's retention.ms, then
# describe it.
import json
import sys

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType, NewTopic

bootstrap, topic, group, count, mode = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
out = {}
admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="kafka-python-admin")


def settle(fn):
    try:
        return {"ok": True, "value": fn()}
    except Exception as e:  # the IT shows what failed
        return {"ok": False, "error": repr(e)}


def topic_configs(name):
    res = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)])
    error_code, error_message, _, _, entries = res[0].resources[0]
    return {"error_code": error_code, "configs": {e[0]: e[1] for e in entries}}


if mode == "all":
    out["create"] = settle(
        lambda: [
            list(t)
            for t in admin.create_topics(
                [NewTopic(topic, 2, 1, topic_configs={"segment.bytes": "1048576"})]
            ).topic_errors
        ]
    )
    out["createRetention"] = settle(
        lambda: [
            list(t)
            for t in admin.create_topics(
                [NewTopic(topic + "-retention", 1, 1, topic_configs={"retention.ms": "3600000"})]
            ).topic_errors
        ]
    )
    out["createBadConfig"] = settle(
        lambda: [
            list(t)
            for t in admin.create_topics(
                [NewTopic(topic + "-bad", 1, 1, topic_configs={"segment.bytes": "not-a-number"})]
            ).topic_errors
        ]
    )
    producer = KafkaProducer(bootstrap_servers=bootstrap, compression_type="gzip")
    for i in range(count):
        producer.send(topic, key=b"k%d" % i, value=b"v%d" % i, partition=i % 2)
    producer.flush()
    producer.close()
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        client_id="kafka-python-consumer",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        consumer_timeout_ms=30000,
    )
    seen = set()
    for m in consumer:
        seen.add(m.key.decode())
        if len(seen) == count:
            break
    consumer.commit()
    out["consumed"] = len(seen)
    out["list"] = sorted([list(g) for g in admin.list_consumer_groups()])
    out["describe"] = [
        {
            "group": g.group,
            "state": g.state,
            "protocol_type": g.protocol_type,
            "protocol": g.protocol,
            "members": [
                {
                    "client_id": m.client_id,
                    "partitions": sorted(
                        p for _, ps in m.member_assignment.assignment for p in ps
                    ),
                }
                for m in g.members
            ],
        }
        for g in admin.describe_consumer_groups([group])
    ]
    out["offsets"] = sorted(
        [[tp.topic, tp.partition, om.offset] for tp, om in admin.list_consumer_group_offsets(group).items()]
    )
    consumer.close()
    out["describeConfigs"] = topic_configs(topic)
elif mode == "alter":
    out["alter"] = settle(
        lambda: [
            list(r[:2])
            for r in admin.alter_configs(
                [ConfigResource(ConfigResourceType.TOPIC, topic, configs={"retention.ms": "7200000"})]
            ).resources
        ]
    )
    out["describeConfigs"] = topic_configs(topic)
admin.close()
print(json.dumps(out))
