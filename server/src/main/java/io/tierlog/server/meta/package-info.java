/**
 * What the server knows about itself and its topics: {@link io.tierlog.server.meta.MetadataService}
 * (node id, cluster id, advertised endpoint, topic lookup) is the read view every API area uses;
 * {@link io.tierlog.server.meta.TopicRegistry} holds the topics (ids, partition counts, configs)
 * and {@link io.tierlog.server.meta.ProducerIdManager} the issued producer ids, each in {@code
 * <data.dir>/meta}.
 *
 * <p>Rules: no wire types beyond Kafka's {@code Uuid}; no API area is imported here.
 */
package io.tierlog.server.meta;
