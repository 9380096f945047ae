"""round facts: each round keeps the facts it was entered with; a correction takes a round's place

Revision ID: f42a1c0e0701
Revises: e4a7c1d9b2f6
Create Date: 2026-11-28 13:40:00

``rounds.facts`` (JSON, nullable): what the state before the round gave it
beyond its payload (who dealt, the svängare, who passed; issue 42), so that
a void or a correction of an earlier round replays it with the same
rotation. Rows stored before have none: ``flask --app referee round-facts``
(run by ``make run`` after this upgrade) gives them theirs by replay in the
order played, and a void or correction of a match still lacking them does
it first. ``rounds.corrects``: on a correction, the number of the round
whose place in the order of play it takes; ``rounds.corrected_by``: on the
corrected round (also marked void), the correction's number.
"""
from alembic import op
import sqlalchemy as sa


revision = 'f42a1c0e0701'
down_revision = 'e4a7c1d9b2f6'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.add_column(sa.Column('facts', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('corrects', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('corrected_by', sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.drop_column('corrected_by')
        batch_op.drop_column('corrects')
        batch_op.drop_column('facts')
