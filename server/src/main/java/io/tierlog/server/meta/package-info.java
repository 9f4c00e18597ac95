/**
 * What the server knows about itself and its topics: {@link io.tierlog.server.meta.MetadataService}
 * (node id, cluster id, advertised endpoint, topic lookup) is the read view every API area uses,
 * over the engine's topic registry (the topics live in the catalog); {@link
 * io.tierlog.server.meta.ProducerIdManager} keeps the issued producer ids in {@code
 * <data.dir>/meta}.
 *
 * <p>Rules: no wire types beyond Kafka's {@code Uuid}; no API area is imported here.
 */
package io.tierlog.server.meta;
