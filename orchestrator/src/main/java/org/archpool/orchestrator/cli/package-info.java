/** The {@code archpool} command line: thin picocli commands, option mixins, one exit-code mapper. */
package org.archpool.orchestrator.cli;
