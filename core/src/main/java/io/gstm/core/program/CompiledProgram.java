package io.gstm.core.program;

import java.util.ArrayList;
import java.util.List;

/**
 * A checked program and its bytecode: what both engines run. Its columns are the parameters
 * flattened in order (an array parameter gives one column per element); instructions name
 * columns, regions and outputs by their position here, and a batch binds them by name.
 *
 * <p>{@link #encode()} writes a compact, versioned image; {@link #decode(int[])} reads one back
 * and verifies every instruction (opcode, registers, constants, slots, regions, jump targets),
 * so that no image, however made, can make an interpreter touch memory it should not.
 *
 * @param name the program's name
 * @param params the parameters, in order
 * @param regions the regions, in order
 * @param outputs the outputs, in order
 * @param tag ordering tag
 * @param body the bytecode
 * @param analysis bounds and properties found by checking
 */
public record CompiledProgram(String name, List<Program.Param> params,
    List<Program.RegionDecl> regions, List<Program.Output> outputs, int tag, Body body,
    Analysis analysis) {

  /**
   * What the interpreters run.
   *
   * @param code instructions
   * @param constants constant pool (register bits)
   * @param registers registers one attempt uses
   * @param outputRegisters register of each output
   */
  public record Body(int[] code, long[] constants, int registers, int[] outputRegisters) {}

  /** Instructions. */
  public int[] code() {
    return body.code();
  }

  /** Constant pool (register bits). */
  public long[] constants() {
    return body.constants();
  }

  /** Registers one attempt uses. */
  public int registers() {
    return body.registers();
  }

  /** Register of each output. */
  public int[] outputRegisters() {
    return body.outputRegisters();
  }

  /** Whether the program can abort with a code of its own (it has an {@code abort}). */
  public boolean mayAbort() {
    int[] code = body.code();
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      if ((code[pc] & 0xff) == Opcodes.ABORT) {
        return true;
      }
    }
    return false;
  }

  /** "GSTP". */
  public static final int MAGIC = 0x47535450;
  /** Registers a program may use (locals, parameters, outputs and temporaries). */
  public static final int MAX_REGISTERS = 64;
  /** Instruction words: jump targets are 16 bits. */
  public static final int MAX_CODE = 65_535;
  public static final int MAX_CONSTANTS = 65_535;
  public static final int MAX_OUTPUTS = 8;
  /** Columns (parameter elements) a program may read. */
  public static final int MAX_COLUMNS = 255;
  /** Instructions one attempt may execute. */
  public static final long MAX_STEPS = 1L << 24;

  public CompiledProgram {
    params = List.copyOf(params);
    regions = List.copyOf(regions);
    outputs = List.copyOf(outputs);
  }

  /** The columns the program reads, by name, in slot order. */
  public List<String> columnNames() {
    List<String> names = new ArrayList<>();
    for (Program.Param p : params) {
      for (int e = 0; e < p.width(); e++) {
        names.add(p.column(e));
      }
    }
    return names;
  }

  /** The type of each column, in slot order. */
  public List<ValueType> columnTypes() {
    List<ValueType> types = new ArrayList<>();
    for (Program.Param p : params) {
      for (int e = 0; e < p.width(); e++) {
        types.add(p.type());
      }
    }
    return types;
  }

  /** First column slot of each parameter. */
  public int[] paramSlots() {
    int[] first = new int[params.size()];
    int slot = 0;
    for (int i = 0; i < params.size(); i++) {
      first[i] = slot;
      slot += params.get(i).width();
    }
    return first;
  }

  /** Index of region {@code name} in {@link #regions()}, or -1. */
  public int regionIndex(String name) {
    for (int r = 0; r < regions.size(); r++) {
      if (regions.get(r).name().equals(name)) {
        return r;
      }
    }
    return -1;
  }

  /** Index of output {@code name}, or -1. */
  public int outputIndex(String name) {
    for (int o = 0; o < outputs.size(); o++) {
      if (outputs.get(o).name().equals(name)) {
        return o;
      }
    }
    return -1;
  }

  /** A readable listing of the bytecode, one instruction per line. */
  public String disassemble() {
    return Bytecode.disassemble(body.code(), body.constants());
  }

  /** The versioned image of this program. */
  public int[] encode() {
    return Bytecode.encode(this);
  }

  /**
   * Reads an image written by {@link #encode()}: checks its magic and version and verifies
   * every instruction; anything wrong is a {@link ProgramException} naming the word.
   */
  public static CompiledProgram decode(int[] image) {
    return Bytecode.decode(image);
  }
}
