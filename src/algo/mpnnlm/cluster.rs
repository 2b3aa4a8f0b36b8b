//! Agglomerative clustering of a word's last predictions, to place a new
//! prototype: start with one cluster per prediction, repeatedly merge the
//! two clusters whose centroids (means) are closest in cosine distance, and
//! read the resulting tree from the root down.

/// One node of the merge tree.
#[derive(Debug, Clone)]
struct Node {
    centroid: Vec<f64>,
    size: usize,
    children: Option<(usize, usize)>,
}

/// Candidate locations for a new prototype from the points `points`
/// (`len × dim`, row-major): descending from the root into the larger side,
/// the top-most split whose smaller side holds at least `min_split` of all
/// points; its larger side's centroid first, then the smaller side's. Empty
/// when no split qualifies (fewer than two points, or too lopsided).
pub fn candidates(points: &[f32], dim: usize, min_split: f64) -> Vec<Vec<f32>> {
    let n = points.len().checked_div(dim).unwrap_or(0);
    if n < 2 {
        return Vec::new();
    }
    let nodes = merge_tree(points, dim);
    let need = (min_split * n as f64).max(1.0);
    let mut at = nodes.len() - 1;
    while let Some((a, b)) = nodes[at].children {
        let (big, small) = if nodes[a].size >= nodes[b].size {
            (a, b)
        } else {
            (b, a)
        };
        if nodes[small].size as f64 >= need {
            return [big, small]
                .iter()
                .map(|&k| nodes[k].centroid.iter().map(|&x| x as f32).collect())
                .collect();
        }
        at = big;
    }
    Vec::new()
}

/// The merge tree: leaves `0..n`, then one node per merge, the root last.
/// Ties go to the lowest pair of indices, so the tree is deterministic.
fn merge_tree(points: &[f32], dim: usize) -> Vec<Node> {
    let n = points.len() / dim;
    let mut nodes: Vec<Node> = points
        .chunks_exact(dim)
        .map(|p| Node {
            centroid: p.iter().map(|&x| x as f64).collect(),
            size: 1,
            children: None,
        })
        .collect();
    // Live clusters (node ids) and their pairwise distances.
    let mut live: Vec<usize> = (0..n).collect();
    let mut dist = vec![vec![0f64; n]; n];
    for i in 0..n {
        for j in 0..i {
            let d = cosine_distance(&nodes[i].centroid, &nodes[j].centroid);
            dist[i][j] = d;
            dist[j][i] = d;
        }
    }
    while live.len() > 1 {
        let (mut bi, mut bj, mut best) = (0, 1, f64::INFINITY);
        for i in 0..live.len() {
            for j in i + 1..live.len() {
                let d = dist[i][j];
                if d < best {
                    (bi, bj, best) = (i, j, d);
                }
            }
        }
        let (a, b) = (live[bi], live[bj]);
        let size = nodes[a].size + nodes[b].size;
        let centroid: Vec<f64> = nodes[a]
            .centroid
            .iter()
            .zip(&nodes[b].centroid)
            .map(|(&x, &y)| (x * nodes[a].size as f64 + y * nodes[b].size as f64) / size as f64)
            .collect();
        nodes.push(Node {
            centroid,
            size,
            children: Some((a, b)),
        });
        // The merged cluster takes slot bi; slot bj is removed.
        live[bi] = nodes.len() - 1;
        live.remove(bj);
        dist.remove(bj);
        for row in dist.iter_mut() {
            row.remove(bj);
        }
        let c = &nodes[live[bi]].centroid;
        for k in 0..live.len() {
            let d = if k == bi {
                0.0
            } else {
                cosine_distance(c, &nodes[live[k]].centroid)
            };
            dist[bi][k] = d;
            dist[k][bi] = d;
        }
    }
    nodes
}

/// `1 − cos(a, b)`; 1 when either is zero.
fn cosine_distance(a: &[f64], b: &[f64]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for (&x, &y) in a.iter().zip(b) {
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        1.0
    } else {
        1.0 - ab / (aa * bb).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_directions_give_their_centroids_larger_first() {
        // 7 points near (1, 0), 3 near (0, 1).
        let mut pts = Vec::new();
        for i in 0..7 {
            pts.extend([1.0, 0.01 * i as f32]);
        }
        for i in 0..3 {
            pts.extend([0.01 * i as f32, 2.0]);
        }
        let c = candidates(&pts, 2, 0.1);
        assert_eq!(c.len(), 2);
        assert!((c[0][0] - 1.0).abs() < 1e-6 && (c[0][1] - 0.03).abs() < 1e-6);
        assert!((c[1][0] - 0.01).abs() < 1e-6 && (c[1][1] - 2.0).abs() < 1e-6);
    }

    #[test]
    fn a_lopsided_split_descends_into_the_larger_side() {
        // One outlier (5% < 10%), then an even split of the rest.
        let mut pts = vec![-1.0f32, -1.0];
        for i in 0..10 {
            pts.extend([1.0, 0.001 * i as f32]);
            pts.extend([0.001 * i as f32, 1.0]);
        }
        let c = candidates(&pts, 2, 0.1);
        assert_eq!(c.len(), 2);
        let near = |v: &[f32], x: f32, y: f32| (v[0] - x).abs() < 0.01 && (v[1] - y).abs() < 0.01;
        assert!(c.iter().any(|v| near(v, 1.0, 0.0045)));
        assert!(c.iter().any(|v| near(v, 0.0045, 1.0)));
        // No split is ever balanced enough when everything is one point but one.
        assert!(candidates(&[1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0], 2, 0.3).is_empty());
    }
}
