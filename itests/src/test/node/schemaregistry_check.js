// Runs what a user of Confluent's own Node.js registry client (@confluentinc/schemaregistry) does
// with kafkajs against tierlog: registers Avro, JSON Schema and Protobuf schemas in tierlog's
// built-in registry, produces records with the client's serializers through tierlog's Kafka port,
// consumes them and decodes them with the client's deserializers, and provokes the errors a user
// meets (an incompatible schema, an unknown subject, an unknown id). Prints one JSON object on
// stdout for SchemaRegistryNodeClientIT to check.
// Usage: node schemaregistry_check.js BOOTSTRAP REGISTRY_URL TOPIC_PREFIX COUNT
'use strict';
const { Kafka, logLevel } = require('kafkajs');
const {
  RestError,
  SchemaRegistryClient,
  SerdeType,
  AvroSerializer,
  AvroDeserializer,
  JsonSerializer,
  JsonDeserializer,
  ProtobufSerializer,
  ProtobufDeserializer,
} = require('@confluentinc/schemaregistry');
const { create, createFileRegistry, createMutableRegistry } = require('@bufbuild/protobuf');
const {
  FileDescriptorProtoSchema,
  FieldDescriptorProto_Type: FieldType,
  FieldDescriptorProto_Label: FieldLabel,
} = require('@bufbuild/protobuf/wkt');

const [bootstrap, registryUrl, prefix, countArg] = process.argv.slice(2);
const count = Number(countArg);
const out = { ids: {}, versions: {}, refused: {}, errors: {}, consumed: {}, headers: {} };

// The client caches what it registered and the latest version of each subject forever: where a
// test needs the server's answer, a new client (as a new process would have) asks it.
const newRegistry = () => new SchemaRegistryClient({ baseURLs: [registryUrl] });
const registry = newRegistry();
const kafka = new Kafka({
  clientId: 'schemaregistry-it',
  brokers: [bootstrap],
  logLevel: logLevel.WARN,
  retry: { retries: 5 },
});

const topics = { avro: `${prefix}-avro`, json: `${prefix}-json`, protobuf: `${prefix}-protobuf` };
const subject = (t) => `${t}-value`;

// How the client surfaces a registry error: a RestError carrying the HTTP status and the
// Confluent error_code of the response body.
async function refusal(p) {
  try {
    const value = await p;
    return { refused: false, value };
  } catch (e) {
    return {
      refused: true,
      restError: e instanceof RestError,
      status: e.status ?? null,
      errorCode: e.errorCode ?? null,
      message: e.message,
    };
  }
}

// ---- Avro: v1, then a compatible v2 (an added field with a default); an incompatible v3 refused.
const avroV1 = {
  type: 'record',
  name: 'Payment',
  namespace: 'io.tierlog.it',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'amount', type: 'double' },
  ],
};
const avroV2 = {
  ...avroV1,
  fields: [...avroV1.fields, { name: 'currency', type: 'string', default: 'EUR' }],
};
// amount double -> string: an old record cannot be read with this schema (BACKWARD breaks).
const avroBad = {
  ...avroV1,
  fields: [
    { name: 'id', type: 'string' },
    { name: 'amount', type: 'string' },
  ],
};

// ---- JSON Schema (draft-07): an integer customerId changed to a string is refused (type changed).
const jsonV1 = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Customer',
  type: 'object',
  properties: { customerId: { type: 'integer' }, name: { type: 'string' } },
  required: ['customerId'],
};
const jsonBad = {
  ...jsonV1,
  properties: { customerId: { type: 'string' }, name: { type: 'string' } },
};

// ---- Protobuf: the text a Java user registers, and the same file as the descriptor the JS serde
// works with (it has no .proto parser). Order is the second message, so its index is [1].
const protoText = `syntax = "proto3";
package tierlog.it;

message Meta {
  string source = 1;
}
message Order {
  string id = 1;
  int64 qty = 2;
  Meta meta = 3;
}
`;
// qty int64 -> string: a scalar kind change Confluent's Protobuf rules refuse.
const protoBad = protoText.replace('int64 qty = 2;', 'string qty = 2;');
const field = (name, number, type, typeName) => ({
  name,
  number,
  type,
  label: FieldLabel.OPTIONAL,
  jsonName: name,
  ...(typeName ? { typeName } : {}),
});
const orderFileProto = create(FileDescriptorProtoSchema, {
  name: 'order.proto',
  package: 'tierlog.it',
  syntax: 'proto3',
  messageType: [
    { name: 'Meta', field: [field('source', 1, FieldType.STRING)] },
    {
      name: 'Order',
      field: [
        field('id', 1, FieldType.STRING),
        field('qty', 2, FieldType.INT64),
        field('meta', 3, FieldType.MESSAGE, '.tierlog.it.Meta'),
      ],
    },
  ],
});
const orderFile = createFileRegistry(orderFileProto, () => undefined).getFile('order.proto');
const Order = orderFile.messages[1];
const Meta = orderFile.messages[0];

function describeHeader(buf) {
  return { magic: buf.readUInt8(0), id: buf.readInt32BE(1), next: buf.length > 5 ? buf.readUInt8(5) : null };
}

async function registerAll() {
  out.ids.avroV1 = await registry.register(subject(topics.avro), {
    schemaType: 'AVRO',
    schema: JSON.stringify(avroV1),
  });
  out.ids.json = await registry.register(subject(topics.json), {
    schemaType: 'JSON',
    schema: JSON.stringify(jsonV1),
  });
  out.ids.protobufText = await registry.register(subject(topics.protobuf), {
    schemaType: 'PROTOBUF',
    schema: protoText,
  });
  // The same Avro schema again: the existing id, no new version.
  out.ids.avroV1Again = await newRegistry().register(subject(topics.avro), {
    schemaType: 'AVRO',
    schema: JSON.stringify(avroV1),
  });
}

async function produceAll(producer) {
  const avroSer = new AvroSerializer(registry, SerdeType.VALUE, { useLatestVersion: true });
  const jsonSer = new JsonSerializer(registry, SerdeType.VALUE, { useLatestVersion: true, validate: true });
  const protoSer = new ProtobufSerializer(registry, SerdeType.VALUE, {
    useLatestVersion: true,
    registry: createMutableRegistry(orderFile),
  });
  const avroMsgs = [];
  const jsonMsgs = [];
  const protoMsgs = [];
  for (let i = 0; i < count; i++) {
    avroMsgs.push({ key: `a${i}`, value: await avroSer.serialize(topics.avro, { id: `p${i}`, amount: i + 0.5 }) });
    jsonMsgs.push({ key: `j${i}`, value: await jsonSer.serialize(topics.json, { customerId: i, name: `n${i}` }) });
    const order = create(Order, { id: `o${i}`, qty: BigInt(i), meta: create(Meta, { source: 'node' }) });
    protoMsgs.push({ key: `o${i}`, value: await protoSer.serialize(topics.protobuf, order) });
  }
  out.headers.avro = describeHeader(avroMsgs[0].value);
  out.headers.json = describeHeader(jsonMsgs[0].value);
  out.headers.protobuf = describeHeader(protoMsgs[0].value);

  // v2 registered after v1's records: a compatible evolution gets a new id and version 2, and
  // records written with it sit in the same topic as v1's.
  out.ids.avroV2 = await registry.register(subject(topics.avro), { schemaType: 'AVRO', schema: JSON.stringify(avroV2) });
  out.versions.avro = await newRegistry().getAllVersions(subject(topics.avro));
  const avroSerV2 = new AvroSerializer(newRegistry(), SerdeType.VALUE, { useLatestVersion: true });
  for (let i = count; i < 2 * count; i++) {
    avroMsgs.push({
      key: `a${i}`,
      value: await avroSerV2.serialize(topics.avro, { id: `p${i}`, amount: i + 0.5, currency: 'CHF' }),
    });
  }

  // What a JS user who never writes .proto text gets: the serializer registers the descriptor.
  const protoAuto = new ProtobufSerializer(registry, SerdeType.VALUE, {
    autoRegisterSchemas: true,
    registry: createMutableRegistry(orderFile),
  });
  const autoBytes = await protoAuto.serialize(
    topics.protobuf,
    create(Order, { id: 'auto', qty: 7n, meta: create(Meta, { source: 'descriptor' }) })
  );
  out.ids.protobufAuto = autoBytes.readInt32BE(1);
  const reader = newRegistry();
  out.protobufSubjectIds = [];
  for (const v of await reader.getAllVersions(subject(topics.protobuf))) {
    out.protobufSubjectIds.push((await reader.getSchemaMetadata(subject(topics.protobuf), v)).id);
  }
  protoMsgs.push({ key: 'auto', value: autoBytes });

  out.produced = {};
  for (const [format, messages] of [
    ['avro', avroMsgs],
    ['json', jsonMsgs],
    ['protobuf', protoMsgs],
  ]) {
    const sent = await producer.send({ topic: topics[format], acks: -1, messages });
    out.produced[format] = { records: messages.length, errorCodes: sent.map((r) => r.errorCode) };
  }
}

async function consumeAll() {
  const consumerSide = newRegistry();
  const deser = {
    avro: new AvroDeserializer(consumerSide, SerdeType.VALUE, {}),
    json: new JsonDeserializer(consumerSide, SerdeType.VALUE, { validate: true }),
    protobuf: new ProtobufDeserializer(consumerSide, SerdeType.VALUE, {}),
  };
  const expected = Object.values(out.produced).reduce((n, p) => n + p.records, 0);
  const byTopic = new Map(Object.entries(topics).map(([f, t]) => [t, f]));
  const seen = { avro: [], json: [], protobuf: [] };
  let total = 0;
  const consumer = kafka.consumer({ groupId: `${prefix}-group` });
  await consumer.connect();
  await consumer.subscribe({ topics: Object.values(topics), fromBeginning: true });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`consumed ${total} of ${expected} records`)), 90000);
    consumer
      .run({
        eachMessage: async ({ topic, message }) => {
          const format = byTopic.get(topic);
          const value = await deser[format].deserialize(topic, message.value);
          seen[format].push({ key: message.key.toString(), value });
          total++;
          if (total === expected) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  // Protobuf messages carry $typeName and BigInt fields: keep what a reader compares.
  out.consumed.avro = seen.avro.map((r) => r.value);
  out.consumed.json = seen.json.map((r) => r.value);
  out.consumed.protobuf = seen.protobuf.map(({ value }) => ({
    typeName: value.$typeName,
    id: value.id,
    qty: value.qty.toString(),
    source: value.meta ? value.meta.source : null,
  }));
}

async function provokeErrors() {
  out.refused.avro = await refusal(
    registry.register(subject(topics.avro), { schemaType: 'AVRO', schema: JSON.stringify(avroBad) })
  );
  out.refused.json = await refusal(
    registry.register(subject(topics.json), { schemaType: 'JSON', schema: JSON.stringify(jsonBad) })
  );
  out.refused.protobuf = await refusal(
    registry.register(subject(topics.protobuf), { schemaType: 'PROTOBUF', schema: protoBad })
  );
  out.compatible = {
    avroBad: await registry.testSubjectCompatibility(subject(topics.avro), {
      schemaType: 'AVRO',
      schema: JSON.stringify(avroBad),
    }),
    avroV2: await registry.testSubjectCompatibility(subject(topics.avro), {
      schemaType: 'AVRO',
      schema: JSON.stringify(avroV2),
    }),
  };
  out.errors.unknownSubject = await refusal(registry.getLatestSchemaMetadata(`${prefix}-no-such-subject`));
  out.errors.unknownVersion = await refusal(registry.getSchemaMetadata(subject(topics.avro), 99));
  out.errors.unknownId = await refusal(registry.getBySubjectAndId(subject(topics.avro), 987654));
  const invalid = await refusal(
    registry.register(`${prefix}-invalid-value`, { schemaType: 'AVRO', schema: '{"type": "record"' })
  );
  out.errors.invalidSchema = invalid;

  // After NONE on the subject the refused schema is accepted: config per subject is honoured.
  out.compatibilityNone = await registry.updateCompatibility(subject(topics.avro), 'NONE');
  out.acceptedUnderNone = await refusal(
    registry.register(subject(topics.avro), { schemaType: 'AVRO', schema: JSON.stringify(avroBad) })
  );
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: Object.values(topics).map((topic) => ({ topic, numPartitions: 1 })),
  });
  await registerAll();
  const producer = kafka.producer();
  await producer.connect();
  await produceAll(producer);
  await producer.disconnect();
  await consumeAll();
  await provokeErrors();
  out.subjects = (await registry.getAllSubjects()).sort();
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
