package io.gstm.core.program;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The programs a batch may run, by type code: a transaction of type {@code i} runs
 * {@code programs().get(i)}. Immutable.
 */
public final class ProgramSet {
  /** Types one batch may mix. */
  public static final int MAX_PROGRAMS = 256;

  private final List<CompiledProgram> programs;

  private ProgramSet(List<CompiledProgram> programs) {
    if (programs.isEmpty()) {
      throw new IllegalArgumentException("programs: a program set needs at least 1 program");
    }
    if (programs.size() > MAX_PROGRAMS) {
      throw new IllegalArgumentException("programs: at most " + MAX_PROGRAMS
          + " programs per set, got " + programs.size());
    }
    Set<String> names = new HashSet<>();
    for (CompiledProgram p : programs) {
      if (!names.add(p.name())) {
        throw new IllegalArgumentException("programs: two programs are named '" + p.name()
            + "'; names must be unique within a set");
      }
    }
    this.programs = List.copyOf(programs);
  }

  public static ProgramSet of(CompiledProgram... programs) {
    return new ProgramSet(List.of(programs));
  }

  public static ProgramSet of(List<CompiledProgram> programs) {
    return new ProgramSet(programs);
  }

  /** Compiles every program; the first error is thrown. */
  public static ProgramSet compile(List<Program> programs) {
    List<CompiledProgram> out = new ArrayList<>();
    for (Program p : programs) {
      out.add(p.compile());
    }
    return new ProgramSet(out);
  }

  /** Parses and compiles every program of {@code text}, in order. */
  public static ProgramSet parse(String text) {
    return compile(Program.parse(text));
  }

  public List<CompiledProgram> programs() {
    return programs;
  }

  public int size() {
    return programs.size();
  }

  public CompiledProgram get(int type) {
    return programs.get(type);
  }

  /** The type code of program {@code name}; an unknown name is an IllegalArgumentException. */
  public int type(String name) {
    for (int i = 0; i < programs.size(); i++) {
      if (programs.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("program '" + name + "' is not in this set (known: "
        + programs.stream().map(CompiledProgram::name).toList() + ")");
  }

  /** Ordering tag per type code, for pre-sorting. */
  public int[] orderingTags() {
    return programs.stream().mapToInt(CompiledProgram::tag).toArray();
  }

  /** The most registers any program uses. */
  public int maxRegisters() {
    return programs.stream().mapToInt(CompiledProgram::registers).max().orElse(1);
  }

  /** The most outputs any program has. */
  public int maxOutputs() {
    return programs.stream().mapToInt(p -> p.outputs().size()).max().orElse(0);
  }

  /** The largest set-entry bound of any program. */
  public long setEntries() {
    return programs.stream().mapToLong(p -> p.analysis().setEntries()).max().orElse(0);
  }
}
