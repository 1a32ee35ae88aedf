package org.archpool.worker.inspect;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds small synthetic ELF64 little-endian files for tests: a file header, the given sections' data, a
 * {@code .shstrtab}, and the section header table at the end.
 */
final class TestElf {

    /** Offset of {@code e_shoff} in the ELF64 file header. */
    static final int E_SHOFF = 40;
    /** Offset of {@code e_shnum} in the ELF64 file header. */
    static final int E_SHNUM = 60;
    /** Offset of {@code e_shstrndx} in the ELF64 file header. */
    static final int E_SHSTRNDX = 62;
    /** Size of one ELF64 section header. */
    static final int SHDR_SIZE = 64;

    private record Section(String name, int type, byte[] data) {
    }

    private final List<Section> sections = new ArrayList<>();
    private int machine = ElfFile.EM_X86_64;
    private int flags;
    private int type = ElfFile.ET_DYN;
    private int osAbi;
    private int abiVersion;
    private boolean extendedNumbering;

    /** Adds a {@code SHT_PROGBITS} section. */
    TestElf section(String name, byte[] data) {
        return section(name, ElfSection.SHT_PROGBITS, data);
    }

    /** Adds a section of the given type. */
    TestElf section(String name, int sectionType, byte[] data) {
        sections.add(new Section(name, sectionType, data));
        return this;
    }

    TestElf machine(int value) {
        this.machine = value;
        return this;
    }

    TestElf flags(int value) {
        this.flags = value;
        return this;
    }

    TestElf abi(int osAbiValue, int abiVersionValue) {
        this.osAbi = osAbiValue;
        this.abiVersion = abiVersionValue;
        return this;
    }

    TestElf type(int value) {
        this.type = value;
        return this;
    }

    /** Stores the section count and name table index in section 0, as files with 65280+ sections do. */
    TestElf extendedNumbering() {
        this.extendedNumbering = true;
        return this;
    }

    /**
     * @return the file's bytes. Sections are numbered from 1 in the order added; the name table comes last.
     */
    byte[] build() {
        ByteArrayOutputStream names = new ByteArrayOutputStream();
        names.write(0);
        List<Integer> nameOffsets = new ArrayList<>();
        for (Section s : sections) {
            nameOffsets.add(addName(names, s.name()));
        }
        int shstrtabName = addName(names, ".shstrtab");
        byte[] nameTable = names.toByteArray();

        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[ElfFile.EHDR_SIZE]);
        List<Long> offsets = new ArrayList<>();
        for (Section s : sections) {
            align(body, 8);
            offsets.add((long) body.size());
            if (s.type() != ElfSection.SHT_NOBITS) {
                body.writeBytes(s.data());
            }
        }
        long nameTableOffset = body.size();
        body.writeBytes(nameTable);
        align(body, 8);
        long shoff = body.size();
        int count = sections.size() + 2;
        int shstrndx = count - 1;

        ByteBuffer table = ByteBuffer.allocate(count * SHDR_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        // section 0: the null section, or the extended numbering fields
        table.putInt(0, 0);
        if (extendedNumbering) {
            table.putLong(32, count);
            table.putInt(40, shstrndx);
        }
        for (int i = 0; i < sections.size(); i++) {
            Section s = sections.get(i);
            putSection(table, i + 1, nameOffsets.get(i), s.type(), offsets.get(i), s.data().length);
        }
        putSection(table, shstrndx, shstrtabName, 3 /* SHT_STRTAB */, nameTableOffset, nameTable.length);
        body.writeBytes(table.array());

        ByteBuffer file = ByteBuffer.wrap(body.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        file.put(0, (byte) 0x7f).put(1, (byte) 'E').put(2, (byte) 'L').put(3, (byte) 'F');
        file.put(4, (byte) 2); // ELFCLASS64
        file.put(5, (byte) 1); // ELFDATA2LSB
        file.put(6, (byte) 1); // EV_CURRENT
        file.put(7, (byte) osAbi);
        file.put(8, (byte) abiVersion);
        file.putShort(16, (short) type);
        file.putShort(18, (short) machine);
        file.putInt(20, 1);
        file.putLong(E_SHOFF, shoff);
        file.putInt(48, flags);
        file.putShort(52, (short) ElfFile.EHDR_SIZE);
        file.putShort(58, (short) SHDR_SIZE);
        file.putShort(E_SHNUM, (short) (extendedNumbering ? 0 : count));
        file.putShort(E_SHSTRNDX, (short) (extendedNumbering ? 0xffff : shstrndx));
        return file.array();
    }

    /** @return the offset of section {@code index}'s header in a file built by this class */
    static int sectionHeaderOffset(byte[] file, int index) {
        return (int) ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong(E_SHOFF) + index * SHDR_SIZE;
    }

    private static void putSection(ByteBuffer table, int index, int name, int type, long offset, long size) {
        int base = index * SHDR_SIZE;
        table.putInt(base, name);
        table.putInt(base + 4, type);
        table.putLong(base + 24, offset);
        table.putLong(base + 32, size);
        table.putLong(base + 48, 8); // sh_addralign
    }

    private static int addName(ByteArrayOutputStream names, String name) {
        int offset = names.size();
        names.writeBytes(name.getBytes(StandardCharsets.UTF_8));
        names.write(0);
        return offset;
    }

    private static void align(ByteArrayOutputStream out, int alignment) {
        while (out.size() % alignment != 0) {
            out.write(0);
        }
    }
}
