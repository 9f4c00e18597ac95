/**
 * The metadata API area: ApiVersions, Metadata (with auto-creation of topics) and FindCoordinator,
 * the APIs a client calls to learn what this server serves and where to send its requests. The
 * answers come from {@link io.tierlog.server.meta.MetadataService}.
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.metadata.MetadataApis} is the
 * one entry. FindCoordinator answers for groups; when a transaction coordinator exists it answers
 * transaction keys too.
 */
package io.tierlog.server.metadata;
