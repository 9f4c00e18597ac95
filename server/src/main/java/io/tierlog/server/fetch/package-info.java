/**
 * The fetch API area: Fetch (with long polls that appends wake) and ListOffsets, and the read side
 * they share: {@link io.tierlog.server.fetch.FetchSource} (hot only, or both tiers through the
 * engine), the per-request reader and the waiters that park fetches.
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.fetch.FetchApis} is the one
 * entry. The fetch sources and the waiters are public because the server builds them (and the
 * builder may wrap the source); nothing here blocks an event loop: cold reads complete on the
 * engine's threads, tiered ListOffsets runs on the blocking executor.
 */
package io.tierlog.server.fetch;
