/* report_tree: the top-down call tree, with inclusive and self shares. */
#ifndef PA_REPORT_TREE_H
#define PA_REPORT_TREE_H

/* --min-percent's default for tree. */
#define PA_REPORT_TREE_MIN_PERCENT 0.5

#endif /* PA_REPORT_TREE_H */
