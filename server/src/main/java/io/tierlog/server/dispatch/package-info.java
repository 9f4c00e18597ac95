/**
 * Request dispatch: the contract every API handler implements ({@link
 * io.tierlog.server.dispatch.ApiHandler}, with {@link io.tierlog.server.dispatch.ApiHandlerBase}
 * for handlers that name their API and versions when built and {@link
 * io.tierlog.server.dispatch.SyncApiHandler} for those that answer at once, inline or on the
 * blocking executor), the registry that routes an API key to its handler and advertises exactly
 * what it routes ({@link io.tierlog.server.dispatch.ApiRegistry}), the per-request context, and the
 * one exception a handler may throw to close its connection on purpose.
 *
 * <p>Rules: depends on nothing of the server but itself; API areas and {@code net} depend on it.
 */
package io.tierlog.server.dispatch;
