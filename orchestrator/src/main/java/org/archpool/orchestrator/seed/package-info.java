/**
 * Configure seeding: what CMake detected about the toolchain in one build tree (the platform, each compiler's
 * identification and ABI, the binary utilities it found), reused by later fresh build trees whose configure lines
 * agree on the toolchain, so compiler identification runs once per toolchain instead of once per project. Never a
 * project's own cache variables; the architecture is always passed on the command line ({@code docs/configure-seeds.md}).
 */
package org.archpool.orchestrator.seed;
