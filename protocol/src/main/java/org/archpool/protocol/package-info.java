/**
 * The worker protocol as values: the JSON-lines messages exchanged between the coordinator and its workers,
 * the job specifications and concrete steps they carry, targets and outcomes. No behaviour beyond validation, and
 * {@link org.archpool.protocol.UntrustedText}, with which every module repeats untrusted text in its messages.
 */
package org.archpool.protocol;
