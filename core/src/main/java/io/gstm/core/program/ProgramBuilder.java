package io.gstm.core.program;

import io.gstm.core.program.Ast.Loc;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a {@link Program} in Java, with the same meaning as the text syntax. Statements are
 * added in order; blocks are lambdas over a {@link Block}. Errors found when the program is
 * checked name the builder call ("builder: statement 3, write(\"stok\", ...)").
 *
 * <pre>
 * Program move = Program.builder("move")
 *     .param("src", ValueType.INT32).param("dst", ValueType.INT32).param("qty", ValueType.INT32)
 *     .region("stock", ValueType.INT32)
 *     .let("have", Term.read("stock", Term.ref("src")))
 *     .ifThen(Term.ref("have").lt(Term.ref("qty")), b -&gt; b.retry())
 *     .write("stock", Term.ref("src"), Term.ref("have").sub(Term.ref("qty")))
 *     .write("stock", Term.ref("dst"),
 *         Term.read("stock", Term.ref("dst")).add(Term.ref("qty")))
 *     .build();
 * </pre>
 */
public final class ProgramBuilder extends Statements<ProgramBuilder> {
  private final String name;
  private final List<Program.Param> params = new ArrayList<>();
  private final List<Program.RegionDecl> regions = new ArrayList<>();
  private final List<Program.Output> outputs = new ArrayList<>();
  private int tag;

  ProgramBuilder(String name) {
    super(new int[1]);
    this.name = name;
  }

  @Override
  ProgramBuilder self() {
    return this;
  }

  /** A scalar parameter: one value per transaction from the batch column {@code name}. */
  public ProgramBuilder param(String param, ValueType type) {
    params.add(new Program.Param(param, type, 0, header("param(\"" + param + "\")")));
    return this;
  }

  /** An array parameter: columns {@code name[0] .. name[length-1]}. */
  public ProgramBuilder arrayParam(String param, ValueType type, int length) {
    params.add(new Program.Param(param, type, length,
        header("arrayParam(\"" + param + "\", " + length + ")")));
    return this;
  }

  /** A region the body reads and writes transactionally. */
  public ProgramBuilder region(String region, ValueType type) {
    regions.add(new Program.RegionDecl(region, type, false,
        header("region(\"" + region + "\")")));
    return this;
  }

  /** A region read outside the read set: data no transaction of the batch writes. */
  public ProgramBuilder sharedRegion(String region, ValueType type) {
    regions.add(new Program.RegionDecl(region, type, true,
        header("sharedRegion(\"" + region + "\")")));
    return this;
  }

  /** An output, 0 until the body assigns it; returned per committed transaction. */
  public ProgramBuilder output(String output, ValueType type) {
    outputs.add(new Program.Output(output, type, header("output(\"" + output + "\")")));
    return this;
  }

  /** The ordering tag (higher runs first in a pre-sorted batch). */
  public ProgramBuilder tag(int value) {
    this.tag = value;
    return this;
  }

  private static Loc header(String call) {
    return new Loc("builder: " + call);
  }

  /** The program; checking happens in {@link Program#compile()}. */
  public Program build() {
    return new Program(name, params, regions, outputs, tag, statements,
        new Loc("builder: Program.builder(\"" + name + "\")"));
  }
}
