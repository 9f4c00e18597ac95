/**
 * The {@code tierlog} command line (picocli): {@code serve}, {@code offload}, {@code inspect},
 * {@code verify}, {@code catalog}, {@code dump-segment}, {@code config-docs}, and how their errors
 * become one line and an exit code ({@code CliErrors}).
 *
 * <p>Rules: starts the server through {@link io.tierlog.server.TierlogServer} and the engine's
 * tools only; no handler or network type is used here.
 */
package io.tierlog.server.cli;
