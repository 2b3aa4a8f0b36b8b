#!/usr/bin/env python3
"""Co-occurrence counts on a Spark cluster, for `wordbench counts --from-parts`.

Reads pre-tokenised text (one document per line, tokens separated by
whitespace: what `wordbench --corpus-format lines` reads when the text needs
no further tokenising, e.g. text8, or your own tokeniser's output), and
counts as `wordbench counts` does:

- a line longer than --max-unit-tokens tokens (default 10,000, wordbench's
  piece length) is cut into pieces of that many tokens, and windows never
  cross a line or a piece;
- words seen fewer than --min-count times in the whole input are dropped
  before windowing;
- pairs within --window words: symmetric (both orders) or --left-only
  (row = the earlier word), each adding 1 (uniform, counts are int64) or
  1/d (harmonic, doubles).

Writes (word, context, count) part files to --out, Parquet by default
(snappy pages, Spark's default) or CSV with a header (--output-format csv),
and the vocabulary as `word count` lines in --out-vocab (a directory with
one part file, default OUT-vocab).

Local run (pyspark from pip, Java 17):

  spark-submit --master 'local[2]' examples/spark/cooc_counts.py \
      --input text8-head.txt --out counts --window 10 --min-count 5
  wordbench counts --from-parts counts --vocab counts-vocab/part-00000 \
      --window 10 --out text8.wbc

On a cluster, give HDFS/S3 paths and the cluster's master, e.g.

  spark-submit --master yarn --deploy-mode cluster --num-executors 50 \
      examples/spark/cooc_counts.py --input hdfs:///corpus/wiki.txt \
      --out hdfs:///counts/wiki-w10 --window 10 --weighting harmonic \
      --min-count 5 --partitions 2000
  hdfs dfs -get /counts/wiki-w10 /counts/wiki-w10-vocab .

Compare with `wordbench counts CORPUS --corpus-format lines --heldout 0`:
wordbench holds out 5% of the pieces for perplexity by default, the job
counts everything. benches/compare/spark_counts.sh runs this job locally
and checks the imported matrix against wordbench's own count: uniform
counts are equal cell for cell; harmonic sums of 1/d are added in Spark's
order, so they may differ from wordbench's in the last bits.
"""
import argparse

from pyspark.sql import SparkSession
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--input", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--out-vocab", default=None, help="default: OUT-vocab")
    p.add_argument("--window", type=int, default=10)
    p.add_argument("--weighting", choices=["uniform", "harmonic"], default="uniform")
    p.add_argument("--left-only", action="store_true")
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--max-unit-tokens", type=int, default=10_000, help="0: no limit")
    p.add_argument("--output-format", choices=["parquet", "csv"], default="parquet")
    p.add_argument("--partitions", type=int, default=0, help="shuffle partitions (0: Spark's)")
    a = p.parse_args()

    spark = SparkSession.builder.appName("wordbench-cooc").getOrCreate()
    sc = spark.sparkContext
    piece = a.max_unit_tokens

    def units(line):
        words = line.split()
        if piece <= 0:
            return [words] if words else []
        return [words[i : i + piece] for i in range(0, len(words), piece)]

    # Pieces, spread over the cluster (a single long line, like text8's, is
    # one input record).
    docs = sc.textFile(a.input).flatMap(units)
    if a.partitions > 0:
        docs = docs.repartition(a.partitions)
    docs = docs.cache()
    counts = docs.flatMap(lambda ws: ((w, 1) for w in ws)).reduceByKey(lambda x, y: x + y)
    kept_counts = counts.filter(lambda kv: kv[1] >= a.min_count).cache()
    vocab = sc.broadcast(set(kept_counts.keys().collect()))
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

    shuffle = a.partitions if a.partitions > 0 else None
    cells = docs.flatMap(pairs).reduceByKey(lambda x, y: x + y, numPartitions=shuffle)
    rows = cells.map(lambda kv: (kv[0][0], kv[0][1], kv[1]))
    schema = StructType(
        [
            StructField("word", StringType(), False),
            StructField("context", StringType(), False),
            StructField("count", DoubleType() if harmonic else LongType(), False),
        ]
    )
    frame = spark.createDataFrame(rows, schema)
    if a.output_format == "parquet":
        frame.write.mode("overwrite").parquet(a.out)
    else:
        frame.write.mode("overwrite").csv(a.out, header=True)
    # The words' own counts, for --vocab (ids by descending count).
    vocab_rows = kept_counts.sortBy(lambda kv: (-kv[1], kv[0])).map(lambda kv: f"{kv[0]} {kv[1]}")
    vocab_rows.coalesce(1).saveAsTextFile(a.out_vocab or a.out.rstrip("/") + "-vocab")
    spark.stop()


if __name__ == "__main__":
    main()
