#!/usr/bin/env python3
"""Co-occurrence counts on a Spark cluster, for `wordbench counts --from-parts`.

Reads pre-tokenised text (one sentence per line, tokens separated by
whitespace: e.g. what `wordbench` would read with `--corpus-format lines`
after your own tokenisation), keeps words seen at least --min-count times,
drops the others before windowing (as wordbench and GloVe do), and counts
pairs within --window words inside a line: symmetric (both orders) or
left-only (row = the earlier word), each adding 1 (uniform) or 1/d
(harmonic). Writes (word, context, count) CSV part files to --out.

  spark-submit examples/spark/cooc_counts.py --input hdfs:///corpus.txt \
      --out hdfs:///counts --window 10 --weighting harmonic --min-count 5
  # copy the directory locally, then:
  wordbench counts --from-parts counts/ --window 10 --weighting harmonic --out corpus.wbc

Status: written for this interface, not run in wordbench's CI (no Java
runtime there); cells are summed in Spark's order, so harmonic values can
differ from `wordbench counts` in the last bits.
"""
import argparse

from pyspark.sql import SparkSession


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--input", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--window", type=int, default=10)
    p.add_argument("--weighting", choices=["uniform", "harmonic"], default="uniform")
    p.add_argument("--left-only", action="store_true")
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--partitions", type=int, default=0)
    a = p.parse_args()

    spark = SparkSession.builder.appName("wordbench-cooc").getOrCreate()
    sc = spark.sparkContext
    lines = sc.textFile(a.input).map(lambda l: l.split()).filter(lambda ws: len(ws) > 0)
    counts = lines.flatMap(lambda ws: ((w, 1) for w in ws)).reduceByKey(lambda x, y: x + y)
    vocab = sc.broadcast(set(counts.filter(lambda kv: kv[1] >= a.min_count).keys().collect()))
    window, harmonic, symmetric = a.window, a.weighting == "harmonic", not a.left_only

    def pairs(words):
        kept = [w for w in words if w in vocab.value]
        for t, target in enumerate(kept):
            for d in range(1, window + 1):
                if t - d < 0:
                    break
                weight = 1.0 / d if harmonic else 1
                yield ((kept[t - d], target), weight)
                if symmetric:
                    yield ((target, kept[t - d]), weight)

    cells = lines.flatMap(pairs).reduceByKey(lambda x, y: x + y)
    if a.partitions > 0:
        cells = cells.repartition(a.partitions)
    rows = cells.map(lambda kv: (kv[0][0], kv[0][1], kv[1]))
    spark.createDataFrame(rows, ["word", "context", "count"]).write.csv(a.out, header=True)
    # A vocabulary file with the words' own counts, for --vocab.
    vocab_rows = counts.filter(lambda kv: kv[1] >= a.min_count).map(lambda kv: f"{kv[0]} {kv[1]}")
    vocab_rows.coalesce(1).saveAsTextFile(a.out + "-vocab")
    spark.stop()


if __name__ == "__main__":
    main()
