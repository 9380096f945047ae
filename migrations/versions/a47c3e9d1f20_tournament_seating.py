"""tournament seating: how each series is seated (draw, standings or rating; issue 47.3)

Revision ID: a47c3e9d1f20
Revises: f42b1a0e0702
Create Date: 2026-11-28 14:20:00

Every tournament before this one was seated by the draw: the column's
server default says so for the rows already there.
"""
import sqlalchemy as sa
from alembic import op


revision = 'a47c3e9d1f20'
down_revision = 'f42b1a0e0702'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seating', sa.String(length=10), nullable=False, server_default='draw'))


def downgrade():
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.drop_column('seating')
