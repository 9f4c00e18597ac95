package io.tierlog.server.admin;

import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.util.List;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData.AclCreationResult;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeAcls, CreateAcls and DeleteAcls (v1-v3) as a Kafka broker without an authorizer answers
 * them: {@code SECURITY_DISABLED}, for the whole request (describe) or for each creation and each
 * filter, with Kafka's messages, so {@code kafka-acls} reports "No Authorizer is configured".
 * Stateless, thread-safe.
 */
final class SecurityDisabledAclHandlers {
    /** Kafka's DescribeAcls message without an authorizer. */
    static final String DESCRIBE_MESSAGE = "No Authorizer is configured on the broker";

    /** Kafka's CreateAcls and DeleteAcls message without an authorizer. */
    static final String ALTER_MESSAGE = "No Authorizer is configured.";

    private SecurityDisabledAclHandlers() {}

    static List<ApiHandler> handlers() {
        return List.of(new Describe(), new Create(), new Delete());
    }

    private static final class Describe extends SyncApiHandler<DescribeAclsRequestData> {
        Describe() {
            super(ApiKeys.DESCRIBE_ACLS, 3, DescribeAclsRequestData.class);
        }

        @Override
        protected ApiMessage handle(
                RequestContext context, DescribeAclsRequestData request, short version) {
            return new DescribeAclsResponseData()
                    .setErrorCode(Errors.SECURITY_DISABLED.code())
                    .setErrorMessage(DESCRIBE_MESSAGE);
        }
    }

    private static final class Create extends SyncApiHandler<CreateAclsRequestData> {
        Create() {
            super(ApiKeys.CREATE_ACLS, 3, CreateAclsRequestData.class);
        }

        @Override
        protected ApiMessage handle(
                RequestContext context, CreateAclsRequestData request, short version) {
            CreateAclsResponseData r = new CreateAclsResponseData();
            for (int i = 0; i < request.creations().size(); i++) {
                r.results()
                        .add(
                                new AclCreationResult()
                                        .setErrorCode(Errors.SECURITY_DISABLED.code())
                                        .setErrorMessage(ALTER_MESSAGE));
            }
            return r;
        }
    }

    private static final class Delete extends SyncApiHandler<DeleteAclsRequestData> {
        Delete() {
            super(ApiKeys.DELETE_ACLS, 3, DeleteAclsRequestData.class);
        }

        @Override
        protected ApiMessage handle(
                RequestContext context, DeleteAclsRequestData request, short version) {
            DeleteAclsResponseData r = new DeleteAclsResponseData();
            for (int i = 0; i < request.filters().size(); i++) {
                r.filterResults()
                        .add(
                                new DeleteAclsFilterResult()
                                        .setErrorCode(Errors.SECURITY_DISABLED.code())
                                        .setErrorMessage(ALTER_MESSAGE));
            }
            return r;
        }
    }
}
