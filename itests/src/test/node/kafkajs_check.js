// Runs what a kafkajs user does against one broker and prints one JSON object on stdout for
// KafkajsIT to check: admin (create topics with configs, offsets, groups, delete), a gzip producer
// and a consumer in a classic group. Usage: node kafkajs_check.js BOOTSTRAP TOPIC GROUP COUNT
'use strict';
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const [bootstrap, topic, groupId, countArg] = process.argv.slice(2);
const count = Number(countArg);
const out = { requests: {} };

// kafkajs logs every request it sends at debug level: keep which API versions it chose.
const logCreator = () => ({ level, log }) => {
  const m = /^Request (\w+)\(key: \d+, version: (\d+)\)/.exec(log.message || '');
  if (m) {
    out.requests[m[1]] = Math.max(out.requests[m[1]] ?? -1, Number(m[2]));
  } else if (level <= logLevel.WARN) {
    process.stderr.write(`kafkajs ${level}: ${log.message} ${log.error ?? ''}\n`);
  }
};

const kafka = new Kafka({
  clientId: 'kafkajs-it',
  brokers: [bootstrap],
  logLevel: logLevel.DEBUG,
  logCreator,
  retry: { retries: 5 },
});

async function settle(p) {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    return { ok: false, error: `${e.name}: ${e.message}`, type: e.type ?? null };
  }
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  out.createWithSegmentBytes = await settle(
    admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic, numPartitions: 3, configEntries: [{ name: 'segment.bytes', value: '1048576' }] },
      ],
    })
  );
  out.createWithRetentionMs = await settle(
    admin.createTopics({
      topics: [
        {
          topic: `${topic}-retention`,
          numPartitions: 1,
          configEntries: [{ name: 'retention.ms', value: '3600000' }],
        },
      ],
    })
  );
  const configs = await settle(
    admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: topic }] })
  );
  out.segmentBytes = configs.ok
    ? (configs.value.resources[0].configEntries.find((c) => c.configName === 'segment.bytes') ?? {})
        .configValue ?? null
    : configs.error;

  const producer = kafka.producer();
  await producer.connect();
  const messages = [];
  for (let i = 0; i < count; i++) {
    messages.push({ key: `k${i}`, value: `v${i}`, headers: { src: 'kafkajs' } });
  }
  const sent = await producer.send({
    topic,
    acks: -1,
    compression: CompressionTypes.GZIP,
    messages,
  });
  out.produced = sent.map((r) => ({ partition: r.partition, errorCode: r.errorCode }));
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const seen = new Map();
  const next = {};
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`consumed ${seen.size} of ${count}`)), 60000);
    consumer
      .run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          seen.set(message.key.toString(), {
            value: message.value.toString(),
            header: message.headers.src?.toString() ?? null,
            partition,
          });
          next[partition] = (BigInt(message.offset) + 1n).toString();
          if (seen.size === count) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.commitOffsets(
    Object.entries(next).map(([partition, offset]) => ({ topic, partition: Number(partition), offset }))
  );
  out.consumed = [...seen.entries()]
    .sort((a, b) => Number(a[0].slice(1)) - Number(b[0].slice(1)))
    .map(([k, v]) => `${k}=${v.value};${v.header}`);

  const described = await admin.describeGroups([groupId]);
  out.describeGroups = described.groups.map((g) => ({
    groupId: g.groupId,
    state: g.state,
    protocolType: g.protocolType,
    protocol: g.protocol,
    members: g.members.map((m) => ({ clientId: m.clientId, hasAssignment: m.memberAssignment.length > 0 })),
    errorCode: g.errorCode,
  }));
  out.listGroups = (await admin.listGroups()).groups.map((g) => g.groupId).sort();
  out.fetchOffsets = (await admin.fetchOffsets({ groupId, topics: [topic] }))
    .flatMap((t) => t.partitions.map((p) => ({ partition: p.partition, offset: p.offset })))
    .sort((a, b) => a.partition - b.partition);
  out.topicOffsets = (await admin.fetchTopicOffsets(topic))
    .map((p) => ({ partition: p.partition, low: p.low, high: p.high }))
    .sort((a, b) => a.partition - b.partition);
  await consumer.disconnect();

  out.afterLeave = (await admin.describeGroups([groupId])).groups.map((g) => g.state);
  out.deleteTopics = await settle(admin.deleteTopics({ topics: [topic], timeout: 10000 }));
  out.topicsAfterDelete = (await admin.listTopics()).sort();
  await admin.disconnect();
}

main().then(
  () => {
    process.stdout.write(JSON.stringify(out) + '\n');
    process.exit(0);
  },
  (e) => {
    process.stderr.write(`FAILED ${e.stack}\n`);
    process.stdout.write(JSON.stringify(out) + '\n');
    process.exit(1);
  }
);
