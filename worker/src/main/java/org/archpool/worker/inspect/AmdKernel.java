package org.archpool.worker.inspect;

/**
 * One kernel of an AMD GPU code object, from the {@code amdhsa.kernels} list of its metadata note.
 *
 * <p><b>What {@code needsHostcall} means, and what it does not.</b> It is true when the kernel's metadata lists a
 * hidden argument of kind {@code hidden_hostcall_buffer}: the runtime must then allocate the hostcall buffer and
 * run the host-side service thread for it. Device {@code printf} and {@code assert} in HIP are built on hostcall.
 * The compiler, however, drops that argument only when it can prove the kernel never uses it, which it does in an
 * optimisation pass (the AMDGPU attributor infers {@code "amdgpu-no-hostcall-ptr"}). Measured with Debian's
 * {@code hipcc} (clang 14, code object V4) and with {@code clang++-19} (code object V5): at {@code -O1} and above
 * only the kernels that really call {@code printf}/{@code assert} have the argument; at {@code -O0} <em>every</em>
 * kernel of the translation unit has it, so at {@code -O0} this flag says "may need hostcall" for all of them.
 * {@code clang++-19 -x hip} compiles device code at {@code -O0} unless told otherwise; Debian's {@code hipcc}
 * optimises by default. Likewise {@code llc-19} alone (without {@code opt}) gives even an empty kernel the
 * argument. A false value is reliable either way; a true one means "the runtime must provide hostcall", not "the
 * kernel surely prints".
 *
 * @param name          the kernel's {@code .name}: the source-level (for C++ kernels, mangled) name, e.g.
 *                      {@code _Z5helloi}
 * @param needsHostcall whether any entry of the kernel's {@code .args} has {@code .value_kind}
 *                      {@code hidden_hostcall_buffer}
 */
public record AmdKernel(String name, boolean needsHostcall) {

    /**
     * Checks that the name is not null.
     *
     * @param name          the kernel's name
     * @param needsHostcall whether it has a hostcall buffer argument
     */
    public AmdKernel {
        if (name == null) {
            throw new NullPointerException("name");
        }
    }
}
