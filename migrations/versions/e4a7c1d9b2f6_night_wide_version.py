"""night wide version: the live version of a night's last write of no match

Revision ID: e4a7c1d9b2f6
Revises: 3b7e1d2c9f40
Create Date: 2026-11-26 17:45:00

A guest's copy of a match page is kept per match version and this (the
players, payments, rights and series a match page also shows), not per
``live_version``, which at a club evening moves with every table's round.
Existing nights start at 0: their pages are rendered again once, nothing
older is served.
"""
from alembic import op
import sqlalchemy as sa


revision = 'e4a7c1d9b2f6'
down_revision = '3b7e1d2c9f40'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.add_column(sa.Column('wide_version', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.drop_column('wide_version')
