/**
 * The tierlog server: the composition root. {@link io.tierlog.server.TierlogServer} opens storage,
 * builds the services and binds the listeners; {@code ApiHandlers} hands each API area the parts it
 * uses and composes the served API list; {@link io.tierlog.server.ServerOptions} declares the
 * server's settings.
 *
 * <p>Layout, and who may depend on whom:
 *
 * <ul>
 *   <li>{@code net}: Netty, framing, connections. Knows no API but ApiVersions' fallback.
 *   <li>{@code dispatch}: the handler contract, the registry of served APIs, the request context.
 *   <li>API areas, one package each, handlers package-private behind one public {@code *Apis}
 *       entry: {@code metadata}, {@code produce}, {@code fetch}, {@code admin}, {@code group}; to
 *       come: {@code txn} (AddPartitionsToTxn, EndTxn, ..., with its coordinator in {@code
 *       txn.coordinator}) and {@code acl} (DescribeAcls, CreateAcls, ...). An area depends on
 *       {@code dispatch}, {@code meta} and storage, never on another area.
 *   <li>Coordinators ({@code group.coordinator}, later {@code txn.coordinator}): state machines
 *       with no wire types; their area's handlers translate requests and responses.
 *   <li>{@code meta}: the server's view of itself and its topics ({@code MetadataService}) and the
 *       stores behind it.
 *   <li>{@code cli}: the command line.
 * </ul>
 */
package io.tierlog.server;
