/**
 * The storage API area: what operators ask of the log itself rather than of topics. DeleteRecords
 * (moves a partition's log start offset in both tiers) and DescribeLogDirs (the hot tier's one log
 * dir and its partitions' sizes).
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.storage.StorageApis} is the one
 * entry. Handlers see the engine ({@link io.tierlog.engine.TieredLog}) only.
 */
package io.tierlog.server.storage;
