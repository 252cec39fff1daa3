"""The classroom tool: the minitorch book as a course.

Students rebuild minitorch task by task: each task is a region of the source
(or of a notebook) between ``### BEGIN SOLUTION <id>`` and ``### END SOLUTION
<id>``, listed in ``classroom/tasks.toml`` and graded by the tests marked
``@pytest.mark.task("<id>")``.  ``python -m classroom`` lists the tasks, writes
a student repository for an assignment, checks a student's work, grades a
folder of submissions and checks the course itself; see classroom/README.md.

From a notebook cell::

    from classroom import check
    check("4.2")
"""


class TaskNotDone(BaseException):
    """What an unfinished task's stub raises.

    A BaseException, not an Exception: no test's ``pytest.raises(RuntimeError)``,
    no ``except Exception`` in the course's code and no hypothesis example can
    catch it by accident, so a test that reaches a stub always stops there, and
    the report says which task it waits on.
    """


def check(*task_ids, root=None):
    """Run the tests of the named tasks (all of them when none is named) and print
    one line per task; see ``classroom.student_check``."""
    from classroom.student_check import check as run
    return run(*task_ids, root=root)
