"""round deal: the trick referee's log of the deal a round was entered from

Revision ID: 948b6dcbc749
Revises: c5db3729d417
Create Date: 2026-11-25 01:50:00

``rounds.deal`` (JSON, nullable) holds the deal (trump, players, leader,
tricks, winners) of a round entered from the trick referee, written in the
round's own INSERT; older rounds have none.
"""
from alembic import op
import sqlalchemy as sa


revision = '948b6dcbc749'
down_revision = 'c5db3729d417'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.add_column(sa.Column('deal', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.drop_column('deal')
