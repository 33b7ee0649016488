package io.gstm.core.cuda.ptx;

import io.gstm.core.program.Opcodes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A program's PR-STM sets laid out at compile time, where its code fixes them: each read and
 * write told its lock's slot and its word's write slot, so that the attempt searches no set
 * (PrStmTx's fixed-slot operations). A program qualifies when
 * <ul>
 *   <li>its jumps all go forward and it has no LOOP or SUM (its accesses' order is its code's),
 *   <li>every transactional read and write indexes by a <em>name</em>: a register set once, by
 *       a column (LDP) or a constant (LDK), in the straight-line start, before the access,
 *   <li>every path to an access brings the same sets (the access's slots are one), and the sets
 *       fit the capacity.
 * </ul>
 * Words are told apart by (store region, name) and locks by (lock row, name): two names may
 * still hold one index, so the body checks at run time, before the fixed-slot code, that the
 * names of each lock row give distinct locks ({@link #rows}); where they do not (an edge from
 * a vertex to itself) the program runs its general code.
 */
final class StaticSets {
  /** What a transactional read does with fixed slots. */
  enum Read { NEW_LOCK, HELD, BUFFERED, UNREACHABLE }

  /**
   * The fixed slots of the access at one pc. A read: {@code read}; {@code lockSlot} and {@code
   * lockSize} (the set's size after it) for NEW_LOCK, {@code writeSlot} for BUFFERED. A write:
   * {@code read} null; {@code lockSize} 0 when its lock is in the set already, {@code
   * writeSize} 0 when its word is written already.
   */
  record Access(Read read, int lockSlot, int lockSize, int writeSlot, int writeSize) {}

  /** Where a name's value comes from (set at {@code pc}): a column slot's value, or a constant. */
  record Name(int pc, int columnSlot, long constant) {
    boolean column() {
      return columnSlot >= 0;
    }
  }

  private record Lock(int row, int name) {}

  private record Word(int storeRegion, int name) {}

  /** The sets as one point of the code has them (null in a map: paths disagree). */
  private record Sets(List<Lock> locks, List<Word> writes, int written) {
    Sets with(Lock l) {
      List<Lock> more = new ArrayList<>(locks);
      more.add(l);
      return new Sets(List.copyOf(more), writes, written);
    }

    Sets with(Word w) {
      List<Word> more = new ArrayList<>(writes);
      more.add(w);
      return new Sets(locks, List.copyOf(more), written);
    }

    Sets writing(int lockSlot) {
      return new Sets(locks, writes, written | 1 << lockSlot);
    }

    /** The commit of these sets: where it writes, the locks only read at a name set by column
     *  {@code source} are its inputs (none where {@code source} is negative). */
    Commit commit(Map<Integer, Name> names, int source) {
      int inputs = 0;
      for (int s = 0; s < locks.size(); s++) {
        Name n = names.get(locks.get(s).name());
        if (source >= 0 && written != 0 && (written >>> s & 1) == 0 && n.columnSlot() == source) {
          inputs |= 1 << s;
        }
      }
      return new Commit(locks.size(), written, writes.size(), inputs);
    }
  }

  /**
   * The sets a commit finds, fixed: the locks' count, those it writes (bit s: slot s), the words'
   * count, and its inputs: locks it only reads whose words it takes as a snapshot, checked as
   * one before it takes its written locks and not validated again after (a relaxation's source,
   * whose change queues its edges again: PrStmTx::commit). The body then commits with them as
   * constants.
   */
  record Commit(int locks, int written, int writes, int inputs) {}

  private final Map<Integer, Access> accesses;
  private final Map<Integer, List<Name>> rows;
  private final Map<Integer, Commit> commits;
  private final Map<Integer, List<Integer>> preloads;

  private StaticSets(Map<Integer, Access> accesses, Map<Integer, List<Name>> rows,
      Map<Integer, Commit> commits, Map<Integer, List<Integer>> preloads) {
    this.accesses = accesses;
    this.rows = rows;
    this.commits = commits;
    this.preloads = preloads;
  }

  /**
   * The reads of a held lock's words that may be loaded as soon as the read at {@code pc}
   * brings the lock into the set: every path to them passes it (it lies in the straight-line
   * start), and their indices are set before it. Loaded then, a word is what a later load would
   * be unless its lock's version moves, which the commit checks (paths: hops[src], read after
   * the comparison, loaded beside dist[src]: a round trip fewer on the transaction's path).
   */
  List<Integer> preloadsAt(int pc) {
    return preloads.getOrDefault(pc, List.of());
  }

  /** Whether the read at {@code pc} was loaded early ({@link #preloadsAt}). */
  boolean preloaded(int pc) {
    return loadedAt(pc) >= 0;
  }

  /** The pc of the read the read at {@code pc} was loaded with, or -1. */
  private int loadedAt(int pc) {
    return preloads.entrySet().stream().filter(e -> e.getValue().contains(pc))
        .mapToInt(Map.Entry::getKey).findFirst().orElse(-1);
  }

  /**
   * The fixed sets of a commit at {@code pc}: a RET reached from the instruction before it, or a
   * jump to a RET (which the body then ends at in place, with the sets the jump has); null
   * where they are not fixed.
   */
  Commit commitAt(int pc) {
    return commits.get(pc);
  }

  /** The access at {@code pc} (a RD or WR), or null for any other instruction. */
  Access at(int pc) {
    return accesses.get(pc);
  }

  /**
   * The layout, an access or a commit a line ({@code pc read: lock 0 new}, {@code pc write: lock
   * 1, word 0 new}, {@code pc commit: 2 locks, written 10, 3 words}), then each lock row's names
   * ({@code row 0: column 0, column 1}).
   */
  String describe() {
    StringBuilder out = new StringBuilder();
    TreeMap<Integer, Object> lines = new TreeMap<>(accesses);
    lines.putAll(commits);
    lines.forEach((pc, line) -> {
      out.append(pc).append(' ');
      if (line instanceof Commit c) {
        out.append("commit: ").append(c.locks()).append(" locks, written ")
            .append(Integer.toBinaryString(c.written())).append(", ").append(c.writes())
            .append(" words").append(c.inputs() != 0 ? ", inputs "
                + Integer.toBinaryString(c.inputs()) : "").append('\n');
        return;
      }
      Access a = (Access) line;
      if (a.read() == null) {
        out.append("write: lock ").append(a.lockSlot()).append(a.lockSize() != 0 ? " new" : "")
            .append(", word ").append(a.writeSlot()).append(a.writeSize() != 0 ? " new" : "");
      } else {
        out.append("read: ").append(switch (a.read()) {
          case NEW_LOCK -> "lock " + a.lockSlot() + " new";
          case HELD -> "lock " + a.lockSlot() + " held"
              + (preloaded(pc) ? ", loaded at " + loadedAt(pc) : "");
          case BUFFERED -> "word " + a.writeSlot() + " written";
          case UNREACHABLE -> "unreachable";
        });
      }
      out.append('\n');
    });
    rows.forEach((row, names) -> {
      out.append("row ").append(row).append(':');
      out.append(String.join(",", names.stream().map(n -> n.column()
          ? " column " + n.columnSlot() : " constant " + n.constant()).toList()));
      out.append('\n');
    });
    return out.toString();
  }

  /** The names each lock row's accesses index by: their locks must be distinct. */
  Map<Integer, List<Name>> rows() {
    return rows;
  }

  /**
   * The layout of the sets of the program at directory entry {@code dir} of {@code img}, or
   * null where the program does not qualify. The locks a commit only reads at the value of
   * column {@code source} are its inputs ({@link Commit}; none where {@code source} is
   * negative).
   */
  static StaticSets of(int[] img, int dir, int capacity, int source) {
    int code = img[dir];
    int codeLen = img[dir + 1];
    int consts = img[dir + 2];
    int slots = img[dir + 4];
    int regions = img[dir + 8];
    int lockRows = img[dir + 15];
    if (lockRows == 0) {
      return null;
    }
    Map<Integer, Name> names = names(img, code, codeLen, consts, slots);
    Map<Integer, Sets> in = new HashMap<>();
    Set<Integer> conflicts = new LinkedHashSet<>();
    in.put(0, new Sets(List.of(), List.of(), 0));
    Map<Integer, Access> accesses = new LinkedHashMap<>();
    Map<Integer, Commit> commits = new LinkedHashMap<>();
    Map<Integer, List<Name>> rows = new LinkedHashMap<>();
    for (int pc = 0; pc < codeLen; pc += PtxWriter.length(img[code + pc])) {
      int w = img[code + pc];
      int op = w & 0xff;
      int a = (w >>> 8) & 0xff;
      int b = (w >>> 16) & 0xff;
      int c = w >>> 24;
      Sets sets = in.get(pc);
      boolean reachable = sets != null || conflicts.contains(pc);
      if (op == Opcodes.LOOP || op == Opcodes.SUM) {
        return null;
      }
      if (op == Opcodes.RD || op == Opcodes.WR) {
        int region = op == Opcodes.RD ? b : a;
        int index = op == Opcodes.RD ? c : b;
        if (!reachable) {
          accesses.put(pc, new Access(Read.UNREACHABLE, 0, 0, 0, 0));
          continue;
        }
        Name name = names.get(index);
        int storeRegion = img[regions + 2 * region];
        if (sets == null || name == null || storeRegion < 0 || name.pc() >= pc) {
          return null;
        }
        int row = img[lockRows + region];
        Lock lock = new Lock(row, index);
        Word word = new Word(storeRegion, index);
        rows.computeIfAbsent(row, r -> new ArrayList<>());
        if (!rows.get(row).contains(name)) {
          rows.get(row).add(name);
        }
        int lockSlot = sets.locks().indexOf(lock);
        int writeSlot = sets.writes().indexOf(word);
        Sets after = sets;
        if (op == Opcodes.RD) {
          if (writeSlot >= 0) {
            accesses.put(pc, new Access(Read.BUFFERED, 0, 0, writeSlot, 0));
          } else if (lockSlot >= 0) {
            accesses.put(pc, new Access(Read.HELD, lockSlot, 0, 0, 0));
          } else {
            after = sets.with(lock);
            accesses.put(pc, new Access(Read.NEW_LOCK, sets.locks().size(),
                after.locks().size(), 0, 0));
          }
        } else {
          int lockSize = 0;
          int writeSize = 0;
          if (lockSlot < 0) {
            lockSlot = sets.locks().size();
            after = after.with(lock);
            lockSize = after.locks().size();
          }
          if (writeSlot < 0) {
            writeSlot = sets.writes().size();
            after = after.with(word);
            writeSize = after.writes().size();
          }
          after = after.writing(lockSlot);
          accesses.put(pc, new Access(null, lockSlot, lockSize, writeSlot, writeSize));
        }
        if (after.locks().size() > capacity || after.writes().size() > capacity) {
          return null;
        }
        sets = after;
      }
      if (!reachable) {
        continue;
      }
      if (op == Opcodes.RET && sets != null) {
        commits.put(pc, sets.commit(names, source));
      }
      for (int next : successors(w, pc)) {
        if (next <= pc) {
          return null; // a backward jump: a loop
        }
        boolean jump = next != pc + PtxWriter.length(w);
        if (jump && sets != null && next < codeLen && (img[code + next] & 0xff) == Opcodes.RET) {
          commits.put(pc, sets.commit(names, source)); // ends here, not at the RET
        } else {
          flow(in, conflicts, next, sets);
        }
      }
    }
    return new StaticSets(accesses, rows, commits, preloads(img, code, codeLen, names,
        accesses));
  }

  /** {@link #preloadsAt}'s reads, by the pc of the read whose lock they find held. */
  private static Map<Integer, List<Integer>> preloads(int[] img, int code, int codeLen,
      Map<Integer, Name> names, Map<Integer, Access> accesses) {
    int prefix = PtxWriter.straightLine(img, code, codeLen);
    Map<Integer, List<Integer>> out = new LinkedHashMap<>();
    accesses.forEach((p, first) -> {
      if (p >= prefix || first.read() != Read.NEW_LOCK) {
        return;
      }
      accesses.forEach((q, later) -> {
        // A HELD access is a read (RD), and every access indexes by a name.
        if (q > p && later.read() == Read.HELD && later.lockSlot() == first.lockSlot()
            && names.get(img[code + q] >>> 24).pc() < p) {
          out.computeIfAbsent(p, k -> new ArrayList<>()).add(q);
        }
      });
    });
    return out;
  }

  /** Brings {@code sets} to {@code pc}: where another path brought other sets, neither holds. */
  private static void flow(Map<Integer, Sets> in, Set<Integer> conflicts, int pc, Sets sets) {
    if (conflicts.contains(pc)) {
      return;
    }
    if (!in.containsKey(pc)) {
      if (sets == null) {
        conflicts.add(pc);
      } else {
        in.put(pc, sets);
      }
    } else if (!Objects.equals(in.get(pc), sets)) {
      in.remove(pc);
      conflicts.add(pc);
    }
  }

  /** The instructions that may run after the one at {@code pc}. */
  private static List<Integer> successors(int w, int pc) {
    int op = w & 0xff;
    int target = op == Opcodes.JMP ? w >>> 8 : ((w >>> 16) & 0xff | (w >>> 24) << 8);
    return switch (op) {
      case Opcodes.RET, Opcodes.RETRY, Opcodes.ABORT -> List.of();
      case Opcodes.JMP -> List.of(target);
      case Opcodes.JZ, Opcodes.JNZ -> List.of(pc + 1, target);
      default -> List.of(pc + PtxWriter.length(w));
    };
  }

  /**
   * The registers set once in the program, by LDP or LDK in its straight-line start (before its
   * first jump or end): their values are known when the body begins.
   */
  private static Map<Integer, Name> names(int[] img, int code, int codeLen, int consts,
      int slots) {
    Map<Integer, Integer> writes = new HashMap<>();
    Map<Integer, Name> names = new HashMap<>();
    int start = PtxWriter.straightLine(img, code, codeLen);
    for (int pc = 0; pc < codeLen; pc += PtxWriter.length(img[code + pc])) {
      int w = img[code + pc];
      int op = w & 0xff;
      int a = (w >>> 8) & 0xff;
      int k = (w >>> 16) & 0xff | (w >>> 24) << 8;
      boolean prefix = pc < start;
      if (!PtxWriter.flow(op) && op != Opcodes.WR) {
        writes.merge(a, 1, Integer::sum);
        if (prefix && op == Opcodes.LDP) {
          names.put(a, new Name(pc, img[slots + k], 0));
        } else if (prefix && op == Opcodes.LDK) {
          names.put(a, new Name(pc, -1,
              (img[consts + 2 * k] & 0xffffffffL) | ((long) img[consts + 2 * k + 1] << 32)));
        }
      }
    }
    names.keySet().removeIf(r -> writes.get(r) != 1);
    return names;
  }
}
