package io.gstm.bench;

/**
 * What a sweep moves: the parameter, the experiment it makes, the table column it varies and how
 * a title names that column.
 *
 * @param sweep the parameter
 * @param experiment the experiment's name, e.g. "prstm-size"
 * @param column the varied column, e.g. "k"
 * @param words the column in words, e.g. "transaction size (accounts per transfer)"
 */
record Axis(Sweep sweep, String experiment, String column, String words) {}
