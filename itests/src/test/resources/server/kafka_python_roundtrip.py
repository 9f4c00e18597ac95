"""kafka-python 2.0.2 against tierlog: produce with every codec, consume it back, and read a topic
the Java client wrote. Prints to stdout tab-separated lines: "sent KEY VALUE", then
"own|java OFFSET KEY VALUE TIMESTAMP HEADERS" (headers as k=hexvalue joined by ','), then "done".

usage: kafka_python_roundtrip.py BOOTSTRAP OWN_TOPIC JAVA_TOPIC JAVA_COUNT PER_CODEC
"""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition


def consume(bootstrap, topic, expected, timeout_s=60):
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                      auto_offset_reset='earliest', consumer_timeout_ms=2000)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    out = []
    deadline = time.time() + timeout_s
    while len(out) < expected and time.time() < deadline:
        for msgs in c.poll(timeout_ms=500).values():
            for m in msgs:
                out.append({
                    'offset': m.offset,
                    'key': m.key.decode() if m.key is not None else None,
                    'value': m.value.decode() if m.value is not None else None,
                    'timestamp': m.timestamp,
                    'headers': [[k, v.hex()] for (k, v) in (m.headers or [])],
                })
    c.close()
    return out


def main():
    bootstrap, own, java_topic = sys.argv[1], sys.argv[2], sys.argv[3]
    java_count, per_codec = int(sys.argv[4]), int(sys.argv[5])
    codecs = [None, 'gzip', 'snappy', 'lz4', 'zstd']
    sent = []
    for codec in codecs:
        p = KafkaProducer(bootstrap_servers=bootstrap, compression_type=codec, acks='all',
                          linger_ms=5)
        name = codec or 'none'
        futures = []
        for i in range(per_codec):
            k, v = '%s:%d' % (name, i), 'py-%s-%d' % (name, i)
            futures.append(p.send(own, key=k.encode(), value=v.encode(), partition=0,
                                  headers=[('src', b'python')]))
            sent.append([k, v])
        p.flush()
        for f in futures:
            f.get(timeout=30)
        p.close()
    own_back = consume(bootstrap, own, len(sent))
    java_back = consume(bootstrap, java_topic, java_count)
    for k, v in sent:
        print('sent\t%s\t%s' % (k, v))
    for tag, recs in (('own', own_back), ('java', java_back)):
        for m in recs:
            hs = ','.join('%s=%s' % (k, v) for (k, v) in m['headers'])
            print('%s\t%d\t%s\t%s\t%d\t%s' % (tag, m['offset'], m['key'], m['value'],
                                                 m['timestamp'], hs))
    print('done')


if __name__ == '__main__':
    main()
