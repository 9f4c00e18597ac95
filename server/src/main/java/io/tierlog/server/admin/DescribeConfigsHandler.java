package io.tierlog.server.admin;

import io.tierlog.common.Config;
import io.tierlog.engine.DescribedConfig;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeConfigs for topics (every Kafka topic config and tierlog's own, with Kafka's sources:
 * topic override, dynamic broker config of this node or of the cluster default, config file,
 * default; synonyms when asked, types and documentation from v3) and for this broker ({@code "0"}:
 * topic defaults under Kafka's broker names, then server options; {@code ""}: the cluster-default
 * dynamic configs). Other resource types answer {@code INVALID_REQUEST}. Thread-safe.
 */
final class DescribeConfigsHandler extends SyncApiHandler<DescribeConfigsRequestData> {
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;

    private final Config config;
    private final MetadataService metadata;
    private final TopicRegistry topics;

    DescribeConfigsHandler(Config config, MetadataService metadata, TopicRegistry topics) {
        super(ApiKeys.DESCRIBE_CONFIGS, 4, DescribeConfigsRequestData.class);
        this.config = config;
        this.metadata = metadata;
        this.topics = topics;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, DescribeConfigsRequestData request, short version) {
        DescribeConfigsResponseData r = new DescribeConfigsResponseData();
        for (DescribeConfigsResource res : request.resources()) {
            DescribeConfigsResult out =
                    new DescribeConfigsResult()
                            .setResourceType(res.resourceType())
                            .setResourceName(res.resourceName());
            List<DescribedConfig> entries;
            if (res.resourceType() == TOPIC) {
                Optional<List<DescribedConfig>> t = topics.describeConfigs(res.resourceName());
                if (t.isEmpty()) {
                    r.results()
                            .add(
                                    out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                                            .setErrorMessage(
                                                    "Topic " + res.resourceName() + " not found"));
                    continue;
                }
                entries = t.get();
            } else if (res.resourceType() == BROKER
                    && (res.resourceName().isEmpty()
                            || res.resourceName().equals(Integer.toString(metadata.nodeId())))) {
                entries =
                        ConfigDescriber.brokerConfigs(config, topics, res.resourceName().isEmpty());
            } else {
                r.results()
                        .add(
                                out.setErrorCode(Errors.INVALID_REQUEST.code())
                                        .setErrorMessage(
                                                "Unsupported resource "
                                                        + res.resourceType()
                                                        + "/"
                                                        + res.resourceName()));
                continue;
            }
            for (DescribedConfig e : entries) {
                if (res.configurationKeys() != null
                        && !res.configurationKeys().contains(e.name())) {
                    continue;
                }
                DescribeConfigsResourceResult c =
                        new DescribeConfigsResourceResult()
                                .setName(e.name())
                                .setValue(e.value())
                                .setReadOnly(e.readOnly())
                                .setConfigSource(e.source().code())
                                .setIsSensitive(false)
                                .setConfigType(ConfigDescriber.typeCode(e.type()))
                                .setDocumentation(request.includeDocumentation() ? e.doc() : null);
                if (request.includeSynonyms()) {
                    for (DescribedConfig.Synonym syn : e.synonyms()) {
                        c.synonyms()
                                .add(
                                        new DescribeConfigsSynonym()
                                                .setName(syn.name())
                                                .setValue(syn.value())
                                                .setSource(syn.source().code()));
                    }
                }
                out.configs().add(c);
            }
            r.results().add(out);
        }
        return r;
    }
}
