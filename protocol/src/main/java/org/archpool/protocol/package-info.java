/**
 * The worker protocol and the build manifest as values: JSON-lines messages exchanged between the
 * coordinator and its workers, job specifications, targets and outcomes. No behaviour beyond validation, and
 * {@link org.archpool.protocol.UntrustedText}, with which every module repeats untrusted text in its messages.
 */
package org.archpool.protocol;
